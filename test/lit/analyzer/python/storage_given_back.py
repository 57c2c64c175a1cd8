# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A shard whose storage is given back (`untyped_storage().resize_(0)`, behind the size test
# FairScale's `free_storage_` makes) after the work reading it was recorded on its stream, then
# grown back and refilled on another stream: the refill writes a new block, which the old read
# never meets, on every path joined later. Without the release the refill writes the bytes the
# read may still use. A helper given `[p]` frees exactly p (a loop over a list written out item
# by item binds each item), and `params is None` is false for it.
# RUN: %check_streamrace %s %t
import torch


def free_storage(tensor):
    if tensor.untyped_storage().size() > 0:
        tensor.untyped_storage().resize_(0)


def grow_storage(tensor, size):
    if tensor.untyped_storage().size() == size:
        return
    tensor.untyped_storage().resize_(size)


class ShardCaster:
    def __init__(self, params):
        self.params = params
        self.gather_stream = torch.cuda.Stream()
        self.cast_stream = torch.cuda.Stream()

    def shard_refilled_while_gathered(self, shard, full, source, size):
        with torch.cuda.stream(self.gather_stream):
            full.copy_(shard, non_blocking=True)
            shard.record_stream(self.gather_stream)
        grow_storage(shard, size)
        with torch.cuda.stream(self.cast_stream):
            shard.copy_(source, non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'shard' is written by copy_ on stream 'self.cast_stream' while copy_ on stream 'self.gather_stream' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-6]]:24: note: copy_ reads 'shard' on stream 'self.gather_stream' here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.cast_stream' wait for stream 'self.gather_stream' before this: `torch.cuda.current_stream().wait_stream(self.gather_stream)`
            # CHECK-MESSAGES: :[[@LINE-4]]:13: warning: 'shard' is written by copy_ on stream 'self.cast_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-11]]:5: note: the caller's work writes 'shard' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-6]]:13: note: make stream 'self.cast_stream' wait for the current stream before entering it: `self.cast_stream.wait_stream(torch.cuda.current_stream())`

    def shard_refilled_after_its_storage_was_given_back(self, shard, full, source, size):
        with torch.cuda.stream(self.gather_stream):
            full.copy_(shard, non_blocking=True)
            shard.record_stream(self.gather_stream)
        free_storage(shard)
        grow_storage(shard, size)
        with torch.cuda.stream(self.cast_stream):
            shard.copy_(source, non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'shard' is written by copy_ on stream 'self.cast_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-9]]:5: note: the caller's work writes 'shard' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.cast_stream' wait for the current stream before entering it: `self.cast_stream.wait_stream(torch.cuda.current_stream())`

    def shards_refilled_while_gathered(self, size):
        self.gather_stream.wait_stream(torch.cuda.current_stream())
        for p in self.params:
            with torch.cuda.stream(self.gather_stream):
                p.full.copy_(p.shard, non_blocking=True)
                p.shard.record_stream(self.gather_stream)
        for p in self.params:
            grow_storage(p.shard, size)
            with torch.cuda.stream(self.cast_stream):
                p.shard.copy_(p.source, non_blocking=True)
                # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'self.params[*].shard' is written by copy_ on stream 'self.cast_stream' while copy_ on stream 'self.gather_stream' may still be reading it; no event or synchronization orders the two streams (the earlier work is left pending when 'shards_refilled_while_gathered' returns) [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-7]]:30: note: copy_ reads 'self.params[*].shard' on stream 'self.gather_stream' here
                # CHECK-MESSAGES: :[[@LINE-3]]:17: note: make stream 'self.cast_stream' wait for stream 'self.gather_stream' before this: `torch.cuda.current_stream().wait_stream(self.gather_stream)`
        torch.cuda.current_stream().wait_stream(self.cast_stream)

    def shards_refilled_after_each_was_given_back(self, size):
        self.gather_stream.wait_stream(torch.cuda.current_stream())
        for p in self.params:
            with torch.cuda.stream(self.gather_stream):
                p.full.copy_(p.shard, non_blocking=True)
                p.shard.record_stream(self.gather_stream)
            self.free_shards([p])
        for p in self.params:
            grow_storage(p.shard, size)
            with torch.cuda.stream(self.cast_stream):
                p.shard.copy_(p.source, non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.cast_stream)

    def free_shards(self, params=None):
        if params is None:
            params = self.params
        for p in params:
            free_storage(p.shard)
