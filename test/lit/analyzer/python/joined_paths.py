# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Past the limit on paths, paths that decided flags of stream work differently are joined; the
# work only some of them hold stays pending only where their flags hold. A shard read on the
# gather stream is given back where `self.release` holds and refilled on the cast stream only
# there: the path that kept it never refills it. Refilled where it was kept, it races. Three
# flags, each tested twice, make the eight paths that are joined.
# RUN: %check_streamrace %s %t
import torch


def free_storage(tensor):
    tensor.untyped_storage().resize_(0)


def grow_storage(tensor, size):
    if tensor.untyped_storage().size() == size:
        return
    tensor.untyped_storage().resize_(size)


class Shards:
    def __init__(self, release, wait_first, wait_last):
        self.release = release
        self.wait_first = wait_first
        self.wait_last = wait_last
        self.gather_stream = torch.cuda.Stream()
        self.cast_stream = torch.cuda.Stream()

    def refilled_where_it_was_given_back(self, shard, full, source, size):
        if self.wait_first:
            self.gather_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.gather_stream):
            full.copy_(shard, non_blocking=True)
            shard.record_stream(self.gather_stream)
        if self.release:
            free_storage(shard)
        if self.wait_last:
            torch.cuda.current_stream().wait_stream(self.cast_stream)
        if self.release:
            grow_storage(shard, size)
            with torch.cuda.stream(self.cast_stream):
                shard.copy_(source, non_blocking=True)
                # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'shard' is written by copy_ on stream 'self.cast_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-15]]:5: note: the caller's work writes 'shard' on the current stream here
                # CHECK-MESSAGES: :[[@LINE-3]]:17: note: make stream 'self.cast_stream' wait for the current stream before entering it: `self.cast_stream.wait_stream(torch.cuda.current_stream())`

    def refilled_where_it_was_kept(self, shard, full, source, size):
        if self.wait_first:
            self.gather_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.gather_stream):
            full.copy_(shard, non_blocking=True)
            shard.record_stream(self.gather_stream)
        if self.release:
            free_storage(shard)
        if self.wait_last:
            torch.cuda.current_stream().wait_stream(self.cast_stream)
        if not self.release:
            with torch.cuda.stream(self.cast_stream):
                shard.copy_(source, non_blocking=True)
                # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'shard' is written by copy_ on stream 'self.cast_stream' while copy_ on stream 'self.gather_stream' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-10]]:24: note: copy_ reads 'shard' on stream 'self.gather_stream' here
                # CHECK-MESSAGES: :[[@LINE-3]]:17: note: make stream 'self.cast_stream' wait for stream 'self.gather_stream' before this: `torch.cuda.current_stream().wait_stream(self.gather_stream)`

    def settle(self):
        if self.wait_first:
            torch.cuda.current_stream().wait_stream(self.gather_stream)
        if self.wait_last:
            torch.cuda.current_stream().wait_stream(self.cast_stream)
