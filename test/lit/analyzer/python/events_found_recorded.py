# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A method that waits for an event of its object that another method records on a side stream
# (`start` filling a buffer on the copy stream and recording `self.ready`, `get` waiting for it)
# finds the copy stream's work unordered until its own wait: the package's waits for the event
# order what follows them, not what the method does first. Each racy class has a twin that waits
# first; a method that records the event itself before waiting, and a wait under a test of
# something else, are left alone.
# RUN: %check_streamrace %s %t
import torch


class ReadBeforeTheWait:
    def __init__(self, size):
        self.copy_stream = torch.cuda.Stream()
        self.ready = torch.cuda.Event()
        self.buf = torch.empty(size, device="cuda")

    def start(self, src):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            self.buf.copy_(src, non_blocking=True)
            self.ready.record()

    def get(self):
        total = self.buf.sum()
        # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'self.buf' is read by sum on the current stream while copy_ on stream 'self.copy_stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'start' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :21:13: note: copy_ writes 'self.buf' on stream 'self.copy_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:17: note: make the current stream wait for stream 'self.copy_stream' before this: `torch.cuda.current_stream().wait_stream(self.copy_stream)`
        torch.cuda.current_stream().wait_event(self.ready)
        return total


class WaitsFirst:
    def __init__(self, size):
        self.copy_stream = torch.cuda.Stream()
        self.ready = torch.cuda.Event()
        self.buf = torch.empty(size, device="cuda")

    def start(self, src):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            self.buf.copy_(src, non_blocking=True)
            self.ready.record()

    def get(self):
        self.ready.wait()
        return self.buf.sum()


class WaitedOnlyWhenStarted:
    """The wait under a test of another attribute says when the copy was started, in terms the
    check does not relate to the starting method's: left alone."""

    def __init__(self, size):
        self.copy_stream = torch.cuda.Stream()
        self.ready = torch.cuda.Event()
        self.buf = torch.empty(size, device="cuda")
        self.started = False

    def start(self, src):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            self.buf.copy_(src, non_blocking=True)
            self.ready.record()
        self.started = True

    def get(self):
        if self.started:
            self.ready.wait()
        return self.buf.sum()


class RecordsItsOwnFirst:
    """A method that records the event itself before waiting waits for its own work."""

    def __init__(self, size):
        self.copy_stream = torch.cuda.Stream()
        self.ready = torch.cuda.Event()
        self.buf = torch.empty(size, device="cuda")

    def refill(self, src):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            self.buf.copy_(src, non_blocking=True)
            self.ready.record()
        self.ready.wait()
        return self.buf.sum()
