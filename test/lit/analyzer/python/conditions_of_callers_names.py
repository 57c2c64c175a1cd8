# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A caller's condition on a name of its own (`stream is None`, its parameter) says nothing of a
# callee's parameter of the same name: followed into `_receive(tensor, self.recv_stream)`, the
# callee's `stream` is the stream it is given, and its `with torch.cuda.stream(stream)` and
# `stream.synchronize()` are that stream's (vLLM's NCCL engine receives so). The racy class's
# receive does not synchronize; its twin does, and hands back a tensor ready to use.
# RUN: %check_streamrace %s %t
import torch


def log(message):
    print(message)


class ChannelUnsynchronized:
    def __init__(self, device):
        self.recv_stream = torch.cuda.Stream()
        self.device = device

    def fetch(self, shape, stream=None):
        if stream is None:
            log("receiving on the channel's stream")
        with torch.cuda.stream(self.recv_stream):
            tensor = torch.empty(shape, device=self.device)
        self._receive(tensor, self.recv_stream)
        return tensor
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'tensor' is returned to the caller of 'fetch', which uses it on the current stream, while torch.empty (allocation) on stream 'self.recv_stream' may still be writing it; nothing makes the current stream wait for that stream before the return [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-4]]:22: note: torch.empty (allocation) writes 'tensor' on stream 'self.recv_stream' here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: '_receive' is called here
        # CHECK-MESSAGES: :[[@LINE+7]]:13: note: fill_ reads and writes 'tensor' on stream 'self.recv_stream' here
        # CHECK-MESSAGES: :[[@LINE-5]]:16: note: make the current stream wait for stream 'self.recv_stream' before returning: `torch.cuda.current_stream().wait_stream(self.recv_stream)`

    def _receive(self, tensor, stream=None):
        if stream is None:
            stream = torch.cuda.current_stream()
        with torch.cuda.stream(stream):
            tensor.fill_(1.0)


class Channel:
    def __init__(self, device):
        self.recv_stream = torch.cuda.Stream()
        self.device = device

    def fetch(self, shape, stream=None):
        if stream is None:
            log("receiving on the channel's stream")
        with torch.cuda.stream(self.recv_stream):
            tensor = torch.empty(shape, device=self.device)
        self._receive(tensor, self.recv_stream)
        return tensor

    def _receive(self, tensor, stream=None):
        if stream is None:
            stream = torch.cuda.current_stream()
        with torch.cuda.stream(stream):
            tensor.fill_(1.0)
        stream.synchronize()
