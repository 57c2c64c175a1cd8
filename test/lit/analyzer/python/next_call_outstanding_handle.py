# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A method that tests its own handle attribute for None before it keeps a collective's handle
# there says that a call may find the collective its previous call started still outstanding
# (Megatron-LM's start_param_sync called with force_sync while an overlapped all-gather is in
# flight). Its next call is analysed from where its first ended: the forced path must wait for
# the handle before it touches the buffer the all-gather writes, even where another method of
# the class waits for that handle too. The twin waits and stays silent.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist
from torch.distributed import _coalescing_manager


class ParamGatherRacy:
    def __init__(self, numel, group, overlap):
        self.param_data = torch.empty(numel, device="cuda")
        self.group = group
        self.overlap = overlap
        self.param_gather_handle = None

    def start_param_sync(self, shard, force_sync=False):
        if force_sync:
            if self.param_gather_handle is not None:
                self.param_gather_handle = None
                self.param_data.zero_()
                # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'self.param_data' is read and written by zero_ on the current stream while all_gather_into_tensor on the process group's stream (group=self.group) may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending by the previous call to 'start_param_sync') [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE+7]]:41: note: all_gather_into_tensor writes 'self.param_data' on the process group's stream (group=self.group) here
                # CHECK-MESSAGES: :[[@LINE-3]]:17: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
                return
        else:
            assert self.param_gather_handle is None
        async_op = self.overlap and not force_sync
        with _coalescing_manager(self.group, async_ops=async_op) as cm:
            dist.all_gather_into_tensor(self.param_data, shard, group=self.group,
                                        async_op=async_op)
        if async_op:
            self.param_gather_handle = cm
        else:
            self.param_gather_handle = None

    def finish_param_sync(self):
        if self.param_gather_handle is not None:
            self.param_gather_handle.wait()
            self.param_gather_handle = None


class ParamGatherWaited:
    def __init__(self, numel, group, overlap):
        self.param_data = torch.empty(numel, device="cuda")
        self.group = group
        self.overlap = overlap
        self.param_gather_handle = None

    def start_param_sync(self, shard, force_sync=False):
        if force_sync:
            if self.param_gather_handle is not None:
                self.param_gather_handle.wait()
                self.param_gather_handle = None
                self.param_data.zero_()
                return
        else:
            assert self.param_gather_handle is None
        async_op = self.overlap and not force_sync
        with _coalescing_manager(self.group, async_ops=async_op) as cm:
            dist.all_gather_into_tensor(self.param_data, shard, group=self.group,
                                        async_op=async_op)
        if async_op:
            self.param_gather_handle = cm
        else:
            self.param_gather_handle = None

    def finish_param_sync(self):
        if self.param_gather_handle is not None:
            self.param_gather_handle.wait()
            self.param_gather_handle = None
