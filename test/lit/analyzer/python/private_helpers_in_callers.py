# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A private helper the package calls by name fills a pinned staging buffer and uploads it
# without blocking; its next call's fill meets the upload only if the host has not waited for
# the current stream in between, which its callers show (a step that reads a count with
# `.item()` first). So what the helper's own walk finds against its earlier calls' uploads is
# said only when no caller's walk followed it. The racy step fills without a wait; its twin
# waits in passing.
# RUN: %check_streamrace %s %t
import torch


class InputsFilledUnwaited:
    def __init__(self, size):
        self.staging = torch.empty(size, pin_memory=True)
        self.inputs = torch.empty(size, device="cuda")

    def step(self, values):
        self._fill(values)
        return self.inputs.sum()

    def _fill(self, values):
        self.staging[: len(values)] = torch.tensor(values)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: the host writes 'self.staging' (__setitem__) while copy_ on the current stream may still be reading it; nothing makes the host wait for that stream (the copy is left pending when '_fill' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-6]]:9: note: '_fill' is called here
        # CHECK-MESSAGES: :[[@LINE+2]]:27: note: copy_ reads 'self.staging' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
        self.inputs.copy_(self.staging, non_blocking=True)


class InputsFilledAfterAWait:
    def __init__(self, size):
        self.staging = torch.empty(size, pin_memory=True)
        self.inputs = torch.empty(size, device="cuda")
        self.counts = torch.zeros(1, device="cuda")

    def step(self, values):
        if self.counts.sum().item() > 0:
            values = values[1:]
        self._fill(values)
        return self.inputs.sum()

    def _fill(self, values):
        self.staging[: len(values)] = torch.tensor(values)
        self.inputs.copy_(self.staging, non_blocking=True)
