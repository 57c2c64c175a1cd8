# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# One attribute keeps a collective's handle two ways: an object made to hold a list of handles,
# whose wait waits for the last (the all-gathers of one process group finish in order), or the
# coalescing manager itself (Megatron-LM's param_and_grad_buffer: the layer-wise path and the
# distributed optimizer's). It holds one or the other: the method that waits for it finds either
# way's collectives outstanding, and its wait orders them. The racy method uses the buffers
# before it waits, and meets each way's gather.
# RUN: %check_streamrace %s %t
import torch.distributed as dist
from torch.distributed import _coalescing_manager


class LastHandle:
    def __init__(self, handles):
        self.handles = handles

    def wait(self):
        if self.handles:
            self.handles[-1].wait()
        self.handles = None


class Gatherer:
    def __init__(self, buffers, shards, group, optimizer_group, layerwise):
        self.buffers = buffers
        self.shards = shards
        self.group = group
        self.optimizer_group = optimizer_group
        self.layerwise = layerwise
        self.handle = None

    def start(self):
        if self.layerwise:
            works = []
            for buf, shard in zip(self.buffers, self.shards):
                works.append(dist.all_gather(list(buf.chunk(2)), shard, group=self.group,
                                             async_op=True))
            self.handle = LastHandle(works)
        else:
            with _coalescing_manager(self.optimizer_group, async_ops=True) as cm:
                for buf, shard in zip(self.buffers, self.shards):
                    dist.all_gather_into_tensor(buf, shard, group=self.optimizer_group)
            self.handle = cm

    def finish(self):
        if self.handle is not None:
            self.handle.wait()
            self.handle = None
        for buf in self.buffers:
            buf.mul_(2)

    def finish_racy(self):
        for buf in self.buffers:
            buf.mul_(2)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'self.buffers[*]' is read and written by mul_ on the current stream while all_gather on the process group's stream (group=self.group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-20]]:46: note: all_gather writes 'self.buffers[*]' on the process group's stream (group=self.group) here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
            # CHECK-MESSAGES: :[[@LINE-4]]:13: warning: 'self.buffers[*]' is read and written by mul_ on the current stream while all_gather_into_tensor on the process group's stream (group=self.optimizer_group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-17]]:49: note: all_gather_into_tensor writes 'self.buffers[*]' on the process group's stream (group=self.optimizer_group) here
            # CHECK-MESSAGES: :[[@LINE-6]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        if self.handle is not None:
            self.handle.wait()
            self.handle = None
