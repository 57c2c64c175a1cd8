# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# An attribute the package only stores elements into (`self.weights[name] = torch.empty(...,
# pin_memory=True)`) holds a dict of host tensors, not one: storing a new entry writes no
# tensor's bytes, so it does not meet the non-blocking download still filling another entry.
# Reading an entry on the host before that download is waited for does.
# RUN: %check_streamrace %s %t
import torch


class WeightsExporter:
    def __init__(self):
        self.weights = {}

    def add(self, name, val):
        if name not in self.weights:
            self.weights[name] = torch.empty(val.size(), dtype=val.dtype, device="cpu",
                                             pin_memory=True)
        self.weights[name].copy_(val, non_blocking=True)

    def add_and_count_racy(self, name, val):
        if name not in self.weights:
            self.weights[name] = torch.empty(val.size(), dtype=val.dtype, device="cpu",
                                             pin_memory=True)
        self.weights[name].copy_(val, non_blocking=True)
        return int(self.weights[name].count_nonzero())
        # CHECK-MESSAGES: :[[@LINE-1]]:20: warning: the host reads 'self.weights[name]' (count_nonzero) while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: copy_ writes 'self.weights[name]' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:20: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
        # CHECK-MESSAGES: :[[@LINE-4]]:20: warning: the host reads 'self.weights[name]' (count_nonzero) while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream (the copy is left pending when 'add' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :18:9: note: copy_ writes 'self.weights[name]' on the current stream here

    def add_and_count(self, name, val):
        if name not in self.weights:
            self.weights[name] = torch.empty(val.size(), dtype=val.dtype, device="cpu",
                                             pin_memory=True)
        self.weights[name].copy_(val, non_blocking=True)
        torch.cuda.current_stream().synchronize()
        return int(self.weights[name].count_nonzero())
