# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Events kept in queues: the root's pre-forward hook copies the parameters down on a side stream
# and appends an event per module to a dict of deques; each module's pre-forward hook pops its
# event and waits for it (DDP's mixed-precision copies). The wait is where the current stream is
# ordered after the copies, so the root hook returning with them running is the program's intent.
# The twin pops the event and never waits: the hook leaves the copies unordered.
# RUN: %check_streamrace %s %t
import collections

import torch


class LowPrecisionCopies:
    def __init__(self, module):
        self.module = module
        self.copy_stream = torch.cuda.Stream()
        self.events = collections.defaultdict(collections.deque)

    def root_pre_forward(self, *args):
        self.events = collections.defaultdict(collections.deque)
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            for submodule in self.module.modules():
                for param in submodule.parameters(recurse=False):
                    param._low.copy_(param.data)
                event = torch.cuda.Event()
                event.record()
                self.events[submodule].append(event)

    def module_pre_forward(self, module, *args):
        try:
            event = self.events[module].popleft()
        except IndexError:
            return
        event.wait(torch.cuda.current_stream())

    def register(self):
        self.module.register_forward_pre_hook(self.root_pre_forward)
        for submodule in self.module.modules():
            submodule.register_forward_pre_hook(self.module_pre_forward)


class LowPrecisionCopiesNeverWaited:
    def __init__(self, module):
        self.module = module
        self.cast_stream = torch.cuda.Stream()
        self.cast_events = collections.defaultdict(collections.deque)

    def root_pre_forward(self, *args):
        self.cast_events = collections.defaultdict(collections.deque)
        self.cast_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.cast_stream):
            for submodule in self.module.modules():
                for param in submodule.parameters(recurse=False):
                    param._cast.copy_(param.data)
                event = torch.cuda.Event()
                event.record()
                self.cast_events[submodule].append(event)
        # CHECK-MESSAGES: :[[@LINE-7]]:9: warning: 'submodule.parameters(recurse=False)[*]._cast' is written by copy_ on stream 'self.cast_stream' when 'root_pre_forward' returns, and nothing makes the current stream wait for it: the code that runs after a hook registered with register_forward_pre_hook uses it on the current stream [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:21: note: copy_ writes 'submodule.parameters(recurse=False)[*]._cast' on stream 'self.cast_stream' here

    def module_pre_forward(self, module, *args):
        if self.cast_events[module]:
            self.cast_events[module].popleft()

    def register(self):
        self.module.register_forward_pre_hook(self.root_pre_forward)
        for submodule in self.module.modules():
            submodule.register_forward_pre_hook(self.module_pre_forward)
