# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# docs/semantics.md rule 7 in Python: `non_blocking` has no effect unless the host memory is
# pinned (PyTorch's documentation), so a copy from or into pageable host memory (a host factory's
# tensor without pin_memory) is done when the call returns, and the host may refill or read it
# at once. With pinned memory the copies are left running: refilling the staging, or reading
# the download, races.
# RUN: %check_streamrace %s %t
import torch


class PageableStaging:
    def __init__(self, size):
        self.staging = torch.zeros(size, dtype=torch.int32, device="cpu")
        self.device_buf = torch.empty(size, dtype=torch.int32, device="cuda")

    def publish(self):
        self.device_buf.copy_(self.staging, non_blocking=True)

    def refill(self, lengths):
        self.staging[: len(lengths)] = lengths


class PinnedStagingRacy:
    def __init__(self, size):
        self.staging = torch.zeros(size, dtype=torch.int32, device="cpu", pin_memory=True)
        self.device_buf = torch.empty(size, dtype=torch.int32, device="cuda")

    def publish(self):
        self.device_buf.copy_(self.staging, non_blocking=True)

    def refill(self, lengths):
        self.staging[: len(lengths)] = lengths
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: the host writes 'self.staging' (__setitem__) while copy_ on the current stream may still be reading it; nothing makes the host wait for that stream (the copy is left pending when 'publish' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-5]]:31: note: copy_ reads 'self.staging' on the current stream here


def download_into_pageable(device_counts):
    counts = torch.empty(device_counts.shape, dtype=device_counts.dtype)
    counts.copy_(device_counts, non_blocking=True)
    return counts.sum()


def download_into_pinned_racy(device_counts):
    counts = torch.empty(device_counts.shape, dtype=device_counts.dtype, pin_memory=True)
    counts.copy_(device_counts, non_blocking=True)
    return counts.sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: the host reads 'counts' (sum) while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: copy_ writes 'counts' on the current stream here
