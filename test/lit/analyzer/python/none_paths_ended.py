# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A name known to hold None on a path makes `x is None` true there: the path that takes the
# other branch does not exist. TorchRec's pipelines copy the loader's next batch, or None when
# the loader is exhausted, and raise at once when the first one is None. That path ends there;
# kept, it went on with a batch that may be None to a start that returns early on None without
# making the dist stream wait for the copy, and the step's read of the batch looked unordered.
# The racy pipeline's start never waits for the copy stream; its twin's waits.
# RUN: %check_streamrace %s %t
import torch


class UnorderedPipeline:
    def __init__(self, model, execute_all=True):
        self.model = model
        self.execute_all = execute_all
        self.copy_stream = torch.cuda.Stream()
        self.dist_stream = torch.cuda.Stream()
        self.batch_i = None
        self.batch_ip1 = None
        self.started = False

    def fill(self, batches):
        if self.batch_i and self.batch_ip1:
            return
        if self.batch_i and self.execute_all:
            return
        self.batch_i = self.copy(batches)
        if self.batch_i is None:
            raise StopIteration
        self.first_start()
        self.start(self.batch_i)
        self.batch_ip1 = self.copy(batches)

    def progress(self, batches):
        self.fill(batches)
        torch.cuda.current_stream().wait_stream(self.dist_stream)
        self.start(self.batch_ip1)
        out = self.model(self.batch_i)
        self.batch_i = self.batch_ip1
        return out

    def first_start(self):
        if self.started:
            return
        self.started = True
        self.start(self.batch_i)

    def copy(self, batches):
        with torch.cuda.stream(self.copy_stream):
            batch = next(batches, None)
            if batch is not None:
                batch = batch.to("cuda", non_blocking=True)
            elif not self.execute_all:
                raise StopIteration
            return batch

    def start(self, batch):
        if batch is None:
            return
        with torch.cuda.stream(self.dist_stream):
            batch.record_stream(self.dist_stream)
            self.lengths = batch.sum(dim=0)
            # CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'batch' is read by sum on stream 'self.dist_stream' while batch.to on stream 'self.copy_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-29]]:9: note: 'fill' is called here
            # CHECK-MESSAGES: :[[@LINE-35]]:9: note: 'first_start' is called here
            # CHECK-MESSAGES: :[[@LINE-20]]:9: note: 'start' is called here
            # CHECK-MESSAGES: :[[@LINE-15]]:25: note: batch.to writes 'batch' on stream 'self.copy_stream' here
            # CHECK-MESSAGES: :[[@LINE-41]]:24: note: 'copy' is called here
            # CHECK-MESSAGES: :[[@LINE-7]]:28: note: make stream 'self.dist_stream' wait for stream 'self.copy_stream' before this: `torch.cuda.current_stream().wait_stream(self.copy_stream)`


class OrderedPipeline:
    def __init__(self, model, execute_all=True):
        self.model = model
        self.execute_all = execute_all
        self.memcpy_stream = torch.cuda.Stream()
        self.data_dist_stream = torch.cuda.Stream()
        self.batch_i = None
        self.batch_ip1 = None
        self.initialized = False

    def fill(self, batches):
        if self.batch_i and self.batch_ip1:
            return
        if self.batch_i and self.execute_all:
            return
        self.batch_i = self.copy(batches)
        if self.batch_i is None:
            raise StopIteration
        self.first_start()
        self.start(self.batch_i)
        self.batch_ip1 = self.copy(batches)

    def progress(self, batches):
        self.fill(batches)
        torch.cuda.current_stream().wait_stream(self.data_dist_stream)
        self.start(self.batch_ip1)
        out = self.model(self.batch_i)
        self.batch_i = self.batch_ip1
        return out

    def first_start(self):
        if self.initialized:
            return
        self.initialized = True
        self.start(self.batch_i)

    def copy(self, batches):
        with torch.cuda.stream(self.memcpy_stream):
            batch = next(batches, None)
            if batch is not None:
                batch = batch.to("cuda", non_blocking=True)
            elif not self.execute_all:
                raise StopIteration
            return batch

    def start(self, batch):
        if batch is None:
            return
        with torch.cuda.stream(self.data_dist_stream):
            self.data_dist_stream.wait_stream(self.memcpy_stream)
            batch.record_stream(self.data_dist_stream)
            self.lengths = batch.sum(dim=0)
