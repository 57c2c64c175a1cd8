# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Shapes of Megatron-LM's gradient reduction (#3670): a stream attribute left None in __init__
# and set by another module, a stream context chosen by an `and` of two flags (or a null
# context), then entered with a coalescing manager, over a loop of buckets whose branches test
# the same flag on every iteration, its handle kept for the method that finishes the reduction.
# The racy function waits on the default stream, the ordered twin on the current one.
# RUN: %check_streamrace %s %t
from contextlib import nullcontext

import torch
from torch.distributed import _coalescing_manager


def shard_buffer(buffer, world_size):
    """Views only: cutting a buffer into shards reads none of its bytes."""
    assert buffer.numel() % world_size == 0
    size = buffer.numel() // world_size
    return [buffer[r * size:(r + 1) * size] for r in range(world_size)]


def squared_norm(buffer):
    return buffer.pow(2).sum()


class BucketGroup:
    def __init__(self, buckets, group, instances):
        self.buckets = buckets
        self.group = group
        self.overlap = True
        self.distributed_optimizer = True
        if instances > 1:
            # The model wrapper sets it after construction.
            self.communication_stream = None

    def start_grad_sync_racy(self, force_all_reduce):
        for bucket in self.buckets:
            bucket.grad_data *= bucket.scaling_factor
        if self.instances > 1 and self.overlap:
            stream_context = torch.cuda.stream(self.communication_stream)
            self.communication_stream.wait_stream(torch.cuda.default_stream())
        else:
            stream_context = nullcontext()
        with stream_context, _coalescing_manager(self.group, async_ops=self.overlap) as cm:
            for index, bucket in enumerate(self.buckets):
                if self.distributed_optimizer and not force_all_reduce:
                    shard = shard_buffer(bucket.grad_data, self.world_size)[self.rank]
                    torch.distributed.reduce_scatter_tensor(shard, bucket.grad_data,
                                                            group=self.group)
                    # CHECK-MESSAGES: :[[@LINE-2]]:68: warning: 'self.buckets[*].grad_data' is read by reduce_scatter_tensor on the process group's stream (group=self.group) while *= on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
                    # CHECK-MESSAGES: :37:13: note: *= reads and writes 'self.buckets[*].grad_data' on the current stream here
                    # CHECK-MESSAGES: :[[@LINE-4]]:68: note: make stream 'self.communication_stream' wait for the current stream before entering it: `self.communication_stream.wait_stream(torch.cuda.current_stream())`
                else:
                    torch.distributed.all_reduce(bucket.grad_data, group=self.group)
        self.grad_reduce_handle = cm if self.overlap else None

    def start_grad_sync_ordered(self, force_all_reduce):
        for bucket in self.buckets:
            bucket.grad_data *= bucket.scaling_factor
        if self.instances > 1 and self.overlap:
            stream_context = torch.cuda.stream(self.communication_stream)
            self.communication_stream.wait_stream(torch.cuda.current_stream())
        else:
            stream_context = nullcontext()
        with stream_context, _coalescing_manager(self.group, async_ops=self.overlap) as cm:
            for index, bucket in enumerate(self.buckets):
                if self.distributed_optimizer and not force_all_reduce:
                    shard = shard_buffer(bucket.grad_data, self.world_size)[self.rank]
                    torch.distributed.reduce_scatter_tensor(shard, bucket.grad_data,
                                                            group=self.group)
                else:
                    torch.distributed.all_reduce(bucket.grad_data, group=self.group)
        self.grad_reduce_handle = cm if self.overlap else None
        torch.cuda.current_stream().wait_stream(self.communication_stream)

    def finish_grad_sync(self):
        if self.grad_reduce_handle is not None:
            self.grad_reduce_handle.wait()
            self.grad_reduce_handle = None

    def norm_during_reduction_racy(self):
        side = self.communication_stream
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            torch.distributed.all_reduce(self.buckets[0].grad_data, group=self.group)
        return squared_norm(self.buckets[0].grad_data)
        # CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'self.buckets[0].grad_data' is read by squared_norm on the current stream while all_reduce on the process group's stream (group=self.group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-3]]:42: note: all_reduce reads and writes 'self.buckets[0].grad_data' on the process group's stream (group=self.group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:29: note: make the current stream wait for stream 'self.communication_stream' before this: `torch.cuda.current_stream().wait_stream(self.communication_stream)`

    def shards_during_reduction_ordered(self):
        side = self.communication_stream
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            torch.distributed.all_reduce(self.buckets[0].grad_data, group=self.group)
        return shard_buffer(self.buckets[0].grad_data, self.world_size)
