# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A flag handed to a callee's parameter that the callee tests is the caller's flag inside the
# callee. Megatron-LM's pipeline schedule waits for its isend under
# `config.deallocate_pipeline_outputs` and then calls a helper that releases the output's storage
# under the same flag, passed as its parameter: the path on which the caller skipped the wait is
# the path on which the helper keeps the storage. Read apart, a path that skips the wait and
# still releases was reported. The racy twins wait under another flag, or not at all, or hand the
# flag to a callee that widens it (a parameter the callee assigns is its own).
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


def release_output(out, deallocate):
    if deallocate:
        out.data = torch.empty((1,), device=out.device, dtype=out.dtype)


def release_output_unless(out, *, keep):
    if not keep:
        out.data = torch.empty((1,), device=out.device, dtype=out.dtype)


def release_output_too(out, deallocate):
    if deallocate:
        out.data = torch.empty((1,), device=out.device, dtype=out.dtype)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: the storage of 'out' is released while isend reads 'out' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE+50]]:9: note: 'release_output_too' is called here
        # CHECK-MESSAGES: :[[@LINE+46]]:27: note: isend reads 'out' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: wait for the collective's work handle (`work.wait()`) before releasing the storage


def release_output_again(out, deallocate):
    if deallocate:
        out.data = torch.empty((1,), device=out.device, dtype=out.dtype)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: the storage of 'out' is released while isend reads 'out' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE+47]]:9: note: 'release_output_again' is called here
        # CHECK-MESSAGES: :[[@LINE+45]]:27: note: isend reads 'out' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: wait for the collective's work handle (`work.wait()`) before releasing the storage


def release_output_if_large(out, deallocate):
    deallocate = deallocate or out.numel() > 1024
    if deallocate:
        out.data = torch.empty((1,), device=out.device, dtype=out.dtype)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: the storage of 'out' is released while isend reads 'out' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE+45]]:9: note: 'release_output_if_large' is called here
        # CHECK-MESSAGES: :[[@LINE+41]]:27: note: isend reads 'out' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: wait for the collective's work handle (`work.wait()`) before releasing the storage


class Stage:
    def __init__(self, config):
        self.config = config
        self.keep_outputs = config.keep_outputs

    def send_waited_where_released(self, x):
        out = x * 2
        work = dist.isend(out, dst=1)
        if self.config.deallocate:
            work.wait()
        release_output(out, self.config.deallocate)
        return work

    def send_waited_unless_kept(self, x):
        out = x * 2
        work = dist.isend(out, dst=1)
        if not self.keep_outputs:
            work.wait()
        release_output_unless(out, keep=self.keep_outputs)
        return work

    def send_waited_under_another_flag(self, x):
        out = x * 2
        work = dist.isend(out, dst=1)
        if self.config.overlap:
            work.wait()
        release_output_too(out, self.config.deallocate)
        return work

    def send_never_waited(self, x):
        out = x * 2
        work = dist.isend(out, dst=1)
        release_output_again(out, self.config.deallocate)
        return work

    def send_released_under_a_flag_the_callee_widens(self, x):
        out = x * 2
        work = dist.isend(out, dst=1)
        if self.config.deallocate:
            work.wait()
        release_output_if_large(out, self.config.deallocate)
        return work
