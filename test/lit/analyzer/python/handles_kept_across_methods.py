# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A collective started by one method and finished by another (Megatron-LM's bucket groups): the
# work handle is kept in an attribute only when the flag made the call asynchronous, and the
# method that finishes must wait for it before it touches the buffer. The synchronous collective
# of the other path orders its own call's work only, and a wait for another attribute's handle
# orders that handle's work only: neither stands for the missing wait. Each racy class has a
# twin that waits and stays silent.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class GradBucketRacy:
    def __init__(self, size, overlap):
        self.grad_data = torch.zeros(size, device="cuda")
        self.grad_reduce_handle = None
        self.overlap = overlap

    def start_grad_sync(self):
        async_op = self.overlap
        handle = dist.all_reduce(self.grad_data, async_op=async_op)
        if async_op:
            self.grad_reduce_handle = handle
        else:
            self.grad_reduce_handle = None

    def finish_grad_sync(self, main_grad):
        if not self.overlap:
            self.start_grad_sync()
            return
        assert self.grad_reduce_handle is not None
        self.grad_reduce_handle = None
        main_grad.copy_(self.grad_data)
        # CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'self.grad_data' is read by copy_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'start_grad_sync' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :21:34: note: all_reduce reads and writes 'self.grad_data' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:25: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this


class GradBucketWaited:
    def __init__(self, size, overlap):
        self.grad_data = torch.zeros(size, device="cuda")
        self.grad_reduce_handle = None
        self.overlap = overlap

    def start_grad_sync(self):
        async_op = self.overlap
        handle = dist.all_reduce(self.grad_data, async_op=async_op)
        if async_op:
            self.grad_reduce_handle = handle
        else:
            self.grad_reduce_handle = None

    def finish_grad_sync(self, main_grad):
        if not self.overlap:
            self.start_grad_sync()
            return
        assert self.grad_reduce_handle is not None
        self.grad_reduce_handle.wait()
        self.grad_reduce_handle = None
        main_grad.copy_(self.grad_data)
