# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Calls are followed a few levels deep. A pipeline's deepest step is often a small helper whose
# stream work is all its own (TorchRec's `_wait_for_batch`: a wait and a record_stream): it is
# followed at the bound too, so that the wait it makes orders the work after it. Without the
# wait, the input distribution reads the batch before its copy lands.
# RUN: %check_streamrace %s %t
import torch


def wait_for_batch(batch, stream):
    if stream is None:
        return
    torch.cuda.current_stream().wait_stream(stream)
    batch.record_stream(torch.cuda.current_stream())


def hand_over_batch(batch, stream):
    if stream is None:
        return
    batch.record_stream(torch.cuda.current_stream())


class Pipeline:
    def __init__(self):
        self._memcpy_stream = torch.cuda.Stream()
        self._data_dist_stream = torch.cuda.Stream()

    def start_input_dist(self, batch):
        with torch.cuda.stream(self._data_dist_stream):
            wait_for_batch(batch, self._memcpy_stream)
            batch.sum()

    def init_modules(self, batch):
        self.start_input_dist(batch)

    def fill(self, loader):
        with torch.cuda.stream(self._memcpy_stream):
            batch = next(loader).to("cuda", non_blocking=True)
        self.init_modules(batch)
        return batch

    def progress(self, loader):
        batch = self.fill(loader)
        wait_for_batch(batch, self._data_dist_stream)
        return batch


class PipelineWithoutTheWait:
    def __init__(self):
        self._memcpy_stream = torch.cuda.Stream()
        self._data_dist_stream = torch.cuda.Stream()

    def start_input_dist_racy(self, batch):
        with torch.cuda.stream(self._data_dist_stream):
            hand_over_batch(batch, self._memcpy_stream)
            batch.sum()
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'batch' is read by sum on stream 'self._data_dist_stream' while next(loader).to on stream 'self._memcpy_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]

    def init_modules(self, batch):
        self.start_input_dist_racy(batch)

    def fill(self, loader):
        with torch.cuda.stream(self._memcpy_stream):
            batch = next(loader).to("cuda", non_blocking=True)
        self.init_modules(batch)
        return batch

    def progress(self, loader):
        batch = self.fill(loader)
        wait_for_batch(batch, self._data_dist_stream)
        return batch
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'batch' is returned to the caller of 'progress', which uses it on the current stream, while next(loader).to on stream 'self._memcpy_stream' may still be writing it; nothing makes the current stream wait for that stream before the return [streamrace-unsynchronized-cross-stream]
