# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# An attribute this call filled, then gave to a call the check cannot see into
# (`self.batch = self.transform(self.batch)`), holds that object or one made of it, not what
# another call left there: a batch another method still copies on a side stream is not what the
# step reads once it has made its own. Each racy class has a twin.
# RUN: %check_streamrace %s %t
import torch


class TransformsItsOwnBatch:
    def __init__(self, device, transform):
        self.device = device
        self.transform = transform
        self.prefetch_stream = torch.cuda.Stream()
        self.batch = None

    def prefetch(self, batch):
        with torch.cuda.stream(self.prefetch_stream):
            self.batch = batch.to(self.device, non_blocking=True)

    def step(self, model, batch):
        self.batch = batch.to(self.device, non_blocking=True)
        self.batch = self.transform(self.batch)
        return model(self.batch.float())


class TransformsThePrefetchedBatch:
    def __init__(self, device, transform):
        self.device = device
        self.transform = transform
        self.prefetch_stream = torch.cuda.Stream()
        self.batch = None

    def prefetch(self, batch):
        with torch.cuda.stream(self.prefetch_stream):
            self.batch = batch.to(self.device, non_blocking=True)

    def step(self, model):
        self.batch = self.transform(self.batch)
        # CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'self.batch' is read by transform on the current stream while batch.to on stream 'self.prefetch_stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'prefetch' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:26: note: batch.to writes 'self.batch' on stream 'self.prefetch_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:37: note: make the current stream wait for stream 'self.prefetch_stream' before this: `torch.cuda.current_stream().wait_stream(self.prefetch_stream)`
        return model(self.batch.float())
