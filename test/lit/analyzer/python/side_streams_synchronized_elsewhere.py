# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Work a call leaves on a side stream and another call's use of the same tensor on the current
# stream: the race is reported unless the package orders the two somewhere. A host wait for the
# side stream in a method of its own (the end-of-backward `synchronize()` of ZeRO-3's reduction
# stream) is such an ordering, as a wait_stream is; a wait for the current stream (a host read
# of a result) is not, since the side stream's work stays pending through it.
# RUN: %check_streamrace %s %t
import torch


class ReducerRacy:
    def __init__(self, numel):
        self.reduction_stream = torch.cuda.Stream()
        self.averaged = torch.zeros(numel, device="cuda")

    def reduce_gradient(self, grad):
        self.reduction_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduction_stream):
            self.averaged.add_(grad)

    def epilogue(self, loss):
        return loss.item()

    def step(self, weights):
        weights.sub_(self.averaged)
        # CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'self.averaged' is read by sub_ on the current stream while add_ on stream 'self.reduction_stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'reduce_gradient' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :19:13: note: add_ reads and writes 'self.averaged' on stream 'self.reduction_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:22: note: make the current stream wait for stream 'self.reduction_stream' before this: `torch.cuda.current_stream().wait_stream(self.reduction_stream)`


class ReducerSynchronized:
    def __init__(self, numel):
        self.reduction_stream = torch.cuda.Stream()
        self.averaged = torch.zeros(numel, device="cuda")

    def reduce_gradient(self, grad):
        self.reduction_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduction_stream):
            self.averaged.add_(grad)

    def epilogue(self, loss):
        self.reduction_stream.synchronize()
        return loss.item()

    def step(self, weights):
        weights.sub_(self.averaged)
