# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# `x.to(y.device)` with x and y on the GPU is x itself: PyTorch makes no copy when a tensor is
# already where it is asked to go (FSDP's `p.data.to(p._full_param_padded.device)`, which only
# moves shards offloaded to the CPU). What reads the result reads x, so a collective given it
# races the cast still writing x on another stream.
#
# A shard released right after a synchronous collective read it, recorded on the stream the
# collective was called on: the process group's work rejoined that stream before the call
# returned, so the allocator reuses the block only once the collective is done.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class ShardGatherer:
    def __init__(self):
        self.cast_stream = torch.cuda.Stream()
        self.gather_stream = torch.cuda.Stream()
        self.fp32_shard = torch.empty(1024, device="cuda")
        self.fp16_shard = torch.empty(1024, device="cuda", dtype=torch.half)
        self.full = torch.empty(4096, device="cuda", dtype=torch.half)

    def cast(self):
        with torch.cuda.stream(self.cast_stream):
            self.fp16_shard.copy_(self.fp32_shard)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'self.fp16_shard' is written by copy_ on stream 'self.cast_stream' while all_gather_into_tensor on the process group's stream (the default group) may still be reading it; no event or synchronization orders the two streams (the earlier work is left pending when 'gather_racy' returns) [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE+6]]:52: note: all_gather_into_tensor reads 'self.fp16_shard' on the process group's stream (the default group) here

    def gather_racy(self):
        self.cast()
        with torch.cuda.stream(self.gather_stream):
            shard = self.fp16_shard.to(self.full.device, non_blocking=True)
            dist.all_gather_into_tensor(self.full, shard)
            # CHECK-MESSAGES: :[[@LINE-1]]:52: warning: 'self.fp16_shard' is read by all_gather_into_tensor on the process group's stream (the default group) while copy_ on stream 'self.cast_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-10]]:13: note: copy_ writes 'self.fp16_shard' on stream 'self.cast_stream' here

    def gather_waits(self):
        self.cast()
        with torch.cuda.stream(self.gather_stream):
            torch.cuda.current_stream().wait_stream(self.cast_stream)
            shard = self.fp16_shard.to(self.full.device, non_blocking=True)
            dist.all_gather_into_tensor(self.full, shard)


def gather_and_free_racy(fp32_shard, full, cast_stream):
    with torch.cuda.stream(cast_stream):
        shard = fp32_shard.half()
    torch.cuda.current_stream().wait_stream(cast_stream)
    dist.all_gather_into_tensor(full, shard)
    shard.untyped_storage().resize_(0)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the storage of 'shard' is released while all_gather_into_tensor reads 'shard' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on stream 'cast_stream' at once [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE-3]]:39: note: all_gather_into_tensor reads 'shard' on the process group's stream (the default group) here


def gather_and_free_recorded(fp32_shard, full, cast_stream):
    with torch.cuda.stream(cast_stream):
        shard = fp32_shard.half()
    torch.cuda.current_stream().wait_stream(cast_stream)
    dist.all_gather_into_tensor(full, shard)
    shard.record_stream(torch.cuda.current_stream())
    shard.untyped_storage().resize_(0)
