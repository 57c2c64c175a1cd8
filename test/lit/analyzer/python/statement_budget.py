# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Past the statement budget of a starting function (its nested loops below spend it), calls are
# no longer followed, except into helpers that only record and give back storage: without
# them the shard would keep the block it gave back, and its refill would meet the read of that
# block. Its racy twin, without the release, is statement_budget_kept.py.
# RUN: %check_streamrace %s %t
import torch


def free_storage(tensor):
    tensor.untyped_storage().resize_(0)


def grow_storage(tensor, size):
    if tensor.untyped_storage().size() == size:
        return
    tensor.untyped_storage().resize_(size)


class LongStepReleasing:
    def __init__(self):
        self.gather_stream = torch.cuda.Stream()
        self.cast_stream = torch.cuda.Stream()

    def release_all(self, params):
        for p in params:
            p.shard.record_stream(torch.cuda.current_stream())
            free_storage(p.shard)

    def released_past_the_budget(self, p, grid):
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
        self.release_all([p])
        grow_storage(p.shard, n)
        with torch.cuda.stream(self.cast_stream):
            p.shard.copy_(p.source, non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'p.shard' is written by copy_ on stream 'self.cast_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-34]]:5: note: the caller's work writes 'p.shard' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.cast_stream' wait for the current stream before entering it: `self.cast_stream.wait_stream(torch.cuda.current_stream())`
        torch.cuda.current_stream().wait_stream(self.cast_stream)


