# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# What an assertion tests holds past it: a path that took the other way at an `if` on the same
# condition raises there. A condition stops holding once what it reads is stored anew: a
# method that asserts `self.handle is None` and then stores a handle leaves a handle to wait
# for, whatever its assertion said. Each racy method has an ordered twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class GatherHandle:
    def __init__(self, work):
        self.work = work


class Gather:
    def __init__(self, group):
        self.group = group
        self.work = None
        self.handle = None

    def start(self, full, shard):
        assert self.handle is None
        self.work = dist.all_gather_into_tensor(full, shard, group=self.group, async_op=True)
        self.handle = GatherHandle(self.work)

    def finish_without_waiting(self, full, shard):
        self.start(full, shard)
        if self.handle is not None:
            self.handle = None
            full.zero_()
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'full' is read and written by zero_ on the current stream while all_gather_into_tensor on the process group's stream (group=self.group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-9]]:49: note: all_gather_into_tensor writes 'full' on the process group's stream (group=self.group) here
            # CHECK-MESSAGES: :[[@LINE-6]]:9: note: 'start' is called here
            # CHECK-MESSAGES: :[[@LINE-4]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this

    def finish(self, full, shard):
        self.start(full, shard)
        if self.handle is not None:
            self.work.wait()
            self.handle = None
            full.zero_()


class CopyBack:
    def __init__(self, overlap):
        self.overlap = overlap
        self.side = torch.cuda.Stream()

    def copied_back_when_overlapping(self, dst, src):
        with torch.cuda.stream(self.side):
            dst.copy_(src, non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'dst' is written by copy_ on stream 'self.side' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:5: note: the caller's work writes 'dst' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.side' wait for the current stream before entering it: `self.side.wait_stream(torch.cuda.current_stream())`
        if not self.overlap:
            torch.cuda.current_stream().wait_stream(self.side)
        dst.add_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'dst' is read and written by add_ on the current stream while copy_ on stream 'self.side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-8]]:13: note: copy_ writes 'dst' on stream 'self.side' here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: make the current stream wait for stream 'self.side' before this: `torch.cuda.current_stream().wait_stream(self.side)`

    def copied_back_never_overlapping(self, dst, src):
        with torch.cuda.stream(self.side):
            dst.copy_(src, non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'dst' is written by copy_ on stream 'self.side' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:5: note: the caller's work writes 'dst' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.side' wait for the current stream before entering it: `self.side.wait_stream(torch.cuda.current_stream())`
        if not self.overlap:
            torch.cuda.current_stream().wait_stream(self.side)
        assert not self.overlap
        dst.add_(1)
