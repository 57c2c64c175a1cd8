# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A package method named like a tensor method (`def norm`, `def sum`) is not what a tensor calls:
# `grads.norm()` reads the gradients, whichever class of the package also has a `norm`. An
# object the package knows the class of still calls its own method.
# RUN: %check_streamrace %s %t
import torch


class ParameterStatistics:
    def __init__(self, parameters):
        self.parameters = parameters

    def norm(self):
        torch.cuda.synchronize()
        return sum(float(p) for p in self.parameters)

    def sum(self, scale):
        return scale * len(self.parameters)


class GradientClipper:
    def __init__(self, parameters):
        self.reduce_stream = torch.cuda.Stream()
        self.statistics = ParameterStatistics(parameters)

    def measure_while_reduced_racy(self, grads):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            grads.mul_(0.5)
        return grads.norm()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'grads' is read by norm on the current stream while mul_ on stream 'self.reduce_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-3]]:13: note: mul_ reads and writes 'grads' on stream 'self.reduce_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'self.reduce_stream' before this: `torch.cuda.current_stream().wait_stream(self.reduce_stream)`

    def sum_while_reduced_racy(self, grads):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            grads.mul_(0.5)
        return grads.sum(0)
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'grads' is read by sum on the current stream while mul_ on stream 'self.reduce_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-3]]:13: note: mul_ reads and writes 'grads' on stream 'self.reduce_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'self.reduce_stream' before this: `torch.cuda.current_stream().wait_stream(self.reduce_stream)`

    def measure_after_the_reduction(self, grads):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            grads.mul_(0.5)
        torch.cuda.current_stream().wait_stream(self.reduce_stream)
        return grads.norm(), grads.sum(0)

    def measure_after_the_statistics(self, grads):
        # The package object's own `norm`, which waits for the device.
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            grads.mul_(0.5)
        total = self.statistics.norm()
        return total, grads.norm()
