# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Past the statement budget of a starting function (its nested loops below spend it), calls are
# no longer followed, except into helpers that only record and give back storage
# (statement_budget.py). Without the release, the refill writes the bytes the read of the
# gather stream may still use.
# RUN: %check_streamrace %s %t
import torch


def grow_storage(tensor, size):
    if tensor.untyped_storage().size() == size:
        return
    tensor.untyped_storage().resize_(size)


class LongStepKeeping:
    def __init__(self):
        self.gather_stream = torch.cuda.Stream()
        self.cast_stream = torch.cuda.Stream()

    def kept_past_the_budget(self, p, grid):
        self.gather_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.gather_stream):
            p.full.copy_(p.shard, non_blocking=True)
            p.shard.record_stream(self.gather_stream)
        n = 0
        for a in grid:
            for b in a:
                for c in b:
                    for d in c:
                        for e in d:
                            for f in e:
                                for g in f:
                                    n = n + 1
                                    n = n + 2
                                    n = n + 3
                                    n = n + 4
                                    n = n + 5
                                    n = n + 6
                                    n = n + 7
                                    n = n + 8
                                    n = n + 9
                                    n = n + 10
                                    n = n + 11
                                    n = n + 12
                                    n = n + 13
                                    n = n + 14
                                    n = n + 15
                                    n = n + 16
        grow_storage(p.shard, n)
        with torch.cuda.stream(self.cast_stream):
            p.shard.copy_(p.source, non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'p.shard' is written by copy_ on stream 'self.cast_stream' while copy_ on stream 'self.gather_stream' may still be reading it; no event or synchronization orders the two streams (the earlier work is left pending when 'kept_past_the_budget' returns) [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-30]]:26: note: copy_ reads 'p.shard' on stream 'self.gather_stream' here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.cast_stream' wait for stream 'self.gather_stream' before this: `torch.cuda.current_stream().wait_stream(self.gather_stream)`
            # CHECK-MESSAGES: :[[@LINE-4]]:13: warning: 'p.shard' is written by copy_ on stream 'self.cast_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-36]]:5: note: the caller's work writes 'p.shard' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-6]]:13: note: make stream 'self.cast_stream' wait for the current stream before entering it: `self.cast_stream.wait_stream(torch.cuda.current_stream())`
        torch.cuda.current_stream().wait_stream(self.cast_stream)
