# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A tensor one method makes on a side stream and keeps in an attribute (a prefetch: `self.buf =
# x * 2` under the copy stream) is still being written when the method returns; another method
# reading the attribute on the current stream meets its making unless it waits for that stream
# first (or for an event recorded after the making). Each racy class has a twin that waits.
# RUN: %check_streamrace %s %t
import torch


class MadeThenRead:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.buf = None

    def start(self, x: torch.Tensor):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            self.buf = x * 2

    def get(self):
        return self.buf.sum()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'self.buf' is read by sum on the current stream while * on stream 'self.stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'start' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :18:24: note: * writes 'self.buf' on stream 'self.stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'self.stream' before this: `torch.cuda.current_stream().wait_stream(self.stream)`


class MadeThenWaitedFor:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.buf = None

    def start(self, x: torch.Tensor):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            self.buf = x * 2

    def get(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        self.buf.record_stream(torch.cuda.current_stream())
        return self.buf.sum()


class MadeWithAnEventReadFirst:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.made = torch.cuda.Event()
        self.buf = None

    def start(self, x: torch.Tensor):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            self.buf = x * 2
            self.made.record()

    def get(self):
        total = self.buf.sum()
        # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'self.buf' is read by sum on the current stream while * on stream 'self.stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'start' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :52:24: note: * writes 'self.buf' on stream 'self.stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:17: note: make the current stream wait for stream 'self.stream' before this: `torch.cuda.current_stream().wait_stream(self.stream)`
        torch.cuda.current_stream().wait_event(self.made)
        return total


class MadeWithAnEventWaitedFirst:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.made = torch.cuda.Event()
        self.buf = None

    def start(self, x: torch.Tensor):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            self.buf = x * 2
            self.made.record()

    def get(self):
        torch.cuda.current_stream().wait_event(self.made)
        self.buf.record_stream(torch.cuda.current_stream())
        return self.buf.sum()
