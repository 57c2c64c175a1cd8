# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A subclass's methods see what its bases' methods store in `self`: the streams a base's
# `__init__` makes, which a subclass with an `__init__` of its own gets through `super()`.
# TorchRec's prefetching pipeline derives from its sparse-dist pipeline this way. Unseen, the
# copy stream was an attribute that may be None, and the wait helper's early return for None
# left the collective unordered after the copy. The racy subclass reads the copy on the
# current stream without a wait; the twin's collective waits through the helper.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


def wait_for(batch, stream):
    if stream is None:
        return
    torch.cuda.current_stream().wait_stream(stream)
    batch.record_stream(torch.cuda.current_stream())


class CopyingPipeline:
    def __init__(self, device):
        if device.type == "cuda":
            self.copy_stream = torch.cuda.Stream()
        else:
            self.copy_stream = None

    def copy(self, batches):
        with torch.cuda.stream(self.copy_stream):
            batch = next(batches, None)
            if batch is not None:
                batch = batch.to("cuda", non_blocking=True)
            return batch


class PeekingPipeline(CopyingPipeline):
    def __init__(self, device):
        super().__init__(device)
        self.peeked = 0

    def peek(self, batches):
        loaded = self.copy(batches)
        if loaded is None:
            raise StopIteration
        self.peeked += 1
        return loaded.max()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'loaded' is read by max on the current stream while batch.to on stream 'self.copy_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-16]]:25: note: batch.to writes 'batch' on stream 'self.copy_stream' here
        # CHECK-MESSAGES: :[[@LINE-7]]:18: note: 'copy' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:16: note: make the current stream wait for stream 'self.copy_stream' before this: `torch.cuda.current_stream().wait_stream(self.copy_stream)`


class SparseDistPipeline:
    def __init__(self, device):
        if device.type == "cuda":
            self.memcpy_stream = torch.cuda.Stream()
            self.dist_stream = torch.cuda.Stream()
        else:
            self.memcpy_stream = None
            self.dist_stream = None
        self.batch = None

    def load(self, batches):
        with torch.cuda.stream(self.memcpy_stream):
            batch = next(batches, None)
            if batch is not None:
                batch = batch.to("cuda", non_blocking=True)
            return batch

    def start(self, batch):
        if batch is None:
            return
        with torch.cuda.stream(self.dist_stream):
            wait_for(batch, self.memcpy_stream)
            dist.all_reduce(batch)


class PrefetchPipeline(SparseDistPipeline):
    def __init__(self, device):
        super().__init__(device)
        self.prefetch_stream = torch.cuda.Stream()

    def fill(self, batches):
        self.batch = self.load(batches)
        if self.batch is None:
            raise StopIteration
        self.start(self.batch)
