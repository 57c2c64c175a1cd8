# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# An event an object is given (`self.copy_event = copy_event`, vLLM's asynchronous outputs) and
# then used through its attribute is the attribute's event: the constructor records it after
# the copies to the host on the copy stream, and `get_output`, which synchronizes it, reads the
# copies safely. The racy class reads before synchronizing; its twin synchronizes first.
# RUN: %check_streamrace %s %t
import torch


class AsyncOutputReadFirst:
    def __init__(self, tokens, main_stream, copy_stream, copy_event):
        self.copy_event = copy_event
        with torch.cuda.stream(copy_stream):
            copy_stream.wait_stream(main_stream)
            self.tokens_cpu = tokens.to("cpu", non_blocking=True)
            self.copy_event.record(copy_stream)

    def get_output(self):
        tokens = self.tokens_cpu.tolist()
        # CHECK-MESSAGES: :[[@LINE-1]]:18: warning: the host reads 'self.tokens_cpu' (tolist) while tokens.to on stream 'copy_stream' may still be writing it; nothing makes the host wait for that stream (the copy is left pending when '__init__' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-6]]:31: note: tokens.to writes 'self.tokens_cpu' on stream 'copy_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:18: note: make the host wait for stream 'copy_stream' before this: `torch.cuda.synchronize()`
        self.copy_event.synchronize()
        return tokens


class AsyncOutput:
    def __init__(self, tokens, main_stream, copy_stream, copy_event):
        self.copy_event = copy_event
        with torch.cuda.stream(copy_stream):
            copy_stream.wait_stream(main_stream)
            self.tokens_cpu = tokens.to("cpu", non_blocking=True)
            self.copy_event.record(copy_stream)

    def get_output(self):
        self.copy_event.synchronize()
        return self.tokens_cpu.tolist()
