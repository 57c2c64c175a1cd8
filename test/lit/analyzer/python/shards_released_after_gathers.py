# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A shard grown back on a cast stream (`untyped_storage().resize_(n)`, FairScale's
# `alloc_storage_`), gathered by a synchronous all-gather called under the gather stream, then
# given back: the cast stream's next allocation (the same statement, for the next shard) may take
# its block while the all-gather still reads it. The finding names where the block was taken,
# and the fix records the shard on the gather stream, which waited for the all-gather when the
# call returned. Recorded so (FairScale's `_free_fp16_param_shard`), nothing is reported.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


def free_storage(tensor):
    if tensor.untyped_storage().size() > 0:
        tensor.untyped_storage().resize_(0)


def grow_storage(tensor, size):
    if tensor.untyped_storage().size() == size:
        return
    tensor.untyped_storage().resize_(size)


class ShardGatherer:
    def __init__(self, params, group):
        self.params = params
        self.group = group
        self.cast_stream = torch.cuda.Stream()
        self.gather_stream = torch.cuda.Stream()

    def cast_shard(self, p):
        self.cast_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.cast_stream):
            grow_storage(p.half_shard, p.shard.numel())
            p.half_shard.copy_(p.shard, non_blocking=True)
        self.gather_stream.wait_stream(self.cast_stream)

    def gathered_then_released(self, p):
        self.cast_shard(p)
        with torch.cuda.stream(self.gather_stream):
            dist.all_gather_into_tensor(p.full, p.half_shard, group=self.group)
            free_storage(p.half_shard)
            # CHECK-MESSAGES: :15:9: warning: the storage of 'p.half_shard' is released while all_gather_into_tensor reads 'p.half_shard' on the process group's stream (group=self.group) may still use it; the caching allocator can give its block to new work on stream 'self.cast_stream' at once [streamrace-free-while-pending]
            # CHECK-MESSAGES: :[[@LINE-2]]:13: note: 'free_storage' is called here
            # CHECK-MESSAGES: :[[@LINE-4]]:49: note: all_gather_into_tensor reads 'p.half_shard' on the process group's stream (group=self.group) here
            # CHECK-MESSAGES: :[[@LINE-7]]:9: note: 'cast_shard' is called here
            # CHECK-MESSAGES: :34:13: note: 'grow_storage' is called here
            # CHECK-MESSAGES: :21:5: note: 'p.half_shard' takes its block here, on stream 'self.cast_stream': the next allocation there may take the block released
            # CHECK-MESSAGES: :[[@LINE-7]]:13: note: tell the allocator about that use before this call: `p.half_shard.record_stream(torch.cuda.current_stream())`
            # CHECK-FIXES: dist.all_gather_into_tensor(p.full, p.half_shard, group=self.group)
            # CHECK-FIXES-NEXT: p.half_shard.record_stream(torch.cuda.current_stream())
            # CHECK-FIXES-NEXT: free_storage(p.half_shard)
        torch.cuda.current_stream().wait_stream(self.gather_stream)

    def gathered_then_released_once_recorded(self, p):
        self.cast_shard(p)
        with torch.cuda.stream(self.gather_stream):
            dist.all_gather_into_tensor(p.full, p.half_shard, group=self.group)
            p.half_shard.record_stream(torch.cuda.current_stream())
            free_storage(p.half_shard)
        torch.cuda.current_stream().wait_stream(self.gather_stream)
