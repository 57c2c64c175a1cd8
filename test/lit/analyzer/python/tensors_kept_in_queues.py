# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A prefetch makes a batch on a side stream and puts it in a queue its object holds (a list or a
# deque under an attribute); another method takes it out (`pop(0)`, `popleft()`, `[0]`) and uses
# it on the current stream. What the queue hands out is one of the tensors put in, still being
# made when the prefetch returned: used before the current stream waits for the side stream, the
# use races the copy. Each racy class has a twin that waits (for the stream, or for an event
# queued beside the batch) and stays silent.
# RUN: %check_streamrace %s %t
import collections

import torch


class BatchQueue:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.batches = []

    def prefetch(self, cpu_batch):
        with torch.cuda.stream(self.stream):
            gpu = cpu_batch.cuda(non_blocking=True)
        self.batches.append(gpu)

    def next(self):
        batch = self.batches.pop(0)
        return batch * 2
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'self.batches[*]' is read by * on the current stream while cpu_batch.cuda on stream 'self.stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'prefetch' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :21:19: note: cpu_batch.cuda writes 'gpu' on stream 'self.stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'self.stream' before this: `torch.cuda.current_stream().wait_stream(self.stream)`


class BatchQueueWaited:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.batches = []

    def prefetch(self, cpu_batch):
        with torch.cuda.stream(self.stream):
            gpu = cpu_batch.cuda(non_blocking=True)
        self.batches.append(gpu)

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        batch = self.batches.pop(0)
        batch.record_stream(torch.cuda.current_stream())
        return batch * 2


class DequeOfCopies:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.ready = collections.deque()

    def prefetch(self, cpu_batch):
        with torch.cuda.stream(self.stream):
            self.ready.append(cpu_batch.to("cuda", non_blocking=True))

    def first(self):
        return self.ready[0].sum()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'self.ready[*]' is read by sum on the current stream while cpu_batch.to on stream 'self.stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'prefetch' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:31: note: cpu_batch.to writes 'self.ready[*]' on stream 'self.stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'self.stream' before this: `torch.cuda.current_stream().wait_stream(self.stream)`


class DequeOfCopiesWithEvents:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.ready = collections.deque()
        self.copied = collections.deque()

    def prefetch(self, cpu_batch):
        with torch.cuda.stream(self.stream):
            self.ready.append(cpu_batch.to("cuda", non_blocking=True))
            event = torch.cuda.Event()
            event.record(self.stream)
        self.copied.append(event)

    def take(self):
        self.copied.popleft().wait()
        return self.ready.popleft().sum()
