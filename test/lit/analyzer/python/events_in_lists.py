# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Events kept in a list under an attribute (`self.events = [torch.cuda.Event() for _ in
# range(4)]`), reached through an object whose making the check did not follow: an element is an
# event, and one at a constant index is that element, whether it is read by its index or by the
# name it was unpacked into. Waiting for the element recorded after the side stream's work orders
# it; waiting for the fork's element does not.
# RUN: %check_streamrace %s %t
import torch


class SharedExpertState:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.events = [torch.cuda.Event() for _ in range(4)]


class SharedExpert:
    def __init__(self, state, module):
        self.state = state
        self.module = module

    def forward(self, x):
        state = self.state
        main = torch.cuda.current_stream()
        fork, shared_done = state.events[:2]
        fork.record(main)
        with torch.cuda.stream(state.stream):
            state.stream.wait_event(fork)
            rows = self.module(x)
            rows.record_stream(main)
            shared_done.record(state.stream)
        return self.tail(rows)

    def tail(self, shared):
        torch.cuda.current_stream().wait_event(self.state.events[1])
        return shared.add_(1)


class SharedExpertWaitingForTheFork:
    def __init__(self, state, module):
        self.state = state
        self.module = module

    def forward(self, x):
        state = self.state
        main = torch.cuda.current_stream()
        fork, shared_done = state.events[:2]
        fork.record(main)
        with torch.cuda.stream(state.stream):
            state.stream.wait_event(fork)
            rows = self.module(x)
            rows.record_stream(main)
            shared_done.record(state.stream)
        return self.tail(rows)
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'rows' is returned to the caller of 'forward', which uses it on the current stream, while self.module on stream 'state.stream' may still be writing it; nothing makes the current stream wait for that stream before the return [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:20: note: self.module writes 'rows' on stream 'state.stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'state.stream' before returning (wait_stream, or an event recorded after the write)

    def tail(self, shared):
        torch.cuda.current_stream().wait_event(self.state.events[0])
        return shared.add_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'rows' is read and written by add_ on the current stream while self.module on stream 'state.stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-9]]:16: note: 'tail' is called here
        # CHECK-MESSAGES: :[[@LINE-13]]:20: note: self.module writes 'rows' on stream 'state.stream' here
        # CHECK-MESSAGES: :[[@LINE-4]]:16: note: make the current stream wait for stream 'state.stream' between the two (wait_stream, or an event recorded after the first and waited on before the second)
