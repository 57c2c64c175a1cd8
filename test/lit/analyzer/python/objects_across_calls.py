# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Across calls, attributes are matched by name only on objects that may be one: `self` of two
# classes neither of which derives from the other are two objects, and an element of a list an
# attribute holds is held through that attribute. What a function returns is its caller's to
# order, not another call's; a gradient one call scales on a side stream is handed out by another
# only if the two may be one object. Each racy class has a twin.
# RUN: %check_streamrace %s %t
import torch


class HostStaging:
    def __init__(self, rows):
        self.host = torch.zeros(rows, pin_memory=True)
        self.device = torch.zeros(rows, device="cuda")

    def download(self):
        self.host.copy_(self.device, non_blocking=True)


class HostStagingReader(HostStaging):
    def total(self):
        total = self.host.sum()
        # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: the host reads 'self.host' (sum) while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream (the copy is left pending when 'download' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-7]]:9: note: copy_ writes 'self.host' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:17: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
        return total.to("cuda", non_blocking=True)


class Scheduler:
    def __init__(self, rows):
        self.host = torch.zeros(rows, pin_memory=True)

    def plan(self):
        total = self.host.sum()
        return total.to("cuda", non_blocking=True)


class Buffer:
    def __init__(self, rows):
        self.cpu = torch.zeros(rows, pin_memory=True)
        self.gpu = torch.zeros(rows, device="cuda")

    def copy_to_cpu(self):
        return self.cpu.copy_(self.gpu, non_blocking=True)


class ConfidenceRecorder:
    def __init__(self):
        self.stale = [Buffer(8), Buffer(8)]
        self.index = 0

    def record(self):
        self.recorded_on = torch.cuda.current_stream()
        self.stale[self.index].copy_to_cpu()
        self.index = 1 - self.index


class IndexBuilder:
    def __init__(self):
        self.indices = Buffer(8)

    def build(self):
        return self.indices.cpu.numpy().tolist()


class ConfidenceRecorderRacy:
    def __init__(self):
        self.pending = [Buffer(8), Buffer(8)]

    def record(self, index):
        self.recorded_on = torch.cuda.current_stream()
        self.pending[index].copy_to_cpu()

    def read(self, index):
        confidences = self.pending[index].cpu.numpy().tolist()
        # CHECK-MESSAGES: :[[@LINE-1]]:23: warning: the host reads 'self.pending[index].cpu' (tolist) while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream (the copy is left pending when 'record' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-33]]:16: note: copy_ writes 'self.pending[index].cpu' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-6]]:9: note: 'copy_to_cpu' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:23: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
        return confidences


# A gradient scaled on the reduction stream by one call is handed out by another only when the
# two may be one object: the gradient of the parameter one attribute holds is not the gradient
# of the parameter another holds.
class GradientReducer:
    def __init__(self, total, bias):
        self.reduction_stream = torch.cuda.Stream()
        self.total = total
        self.bias = bias

    def reduce_total(self):
        with torch.cuda.stream(self.reduction_stream):
            self.total.grad.mul_(0.5)

    def bias_grad(self):
        return self.bias.grad

    def total_grad(self):
        return self.total.grad
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'self.total.grad' is returned to the caller of 'total_grad', which uses it on the current stream, while mul_ on stream 'self.reduction_stream' may still be writing it; nothing makes the current stream wait for that stream before the return (the write is left pending when 'reduce_total' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-8]]:13: note: mul_ reads and writes 'self.total.grad' on stream 'self.reduction_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'self.reduction_stream' before returning: `torch.cuda.current_stream().wait_stream(self.reduction_stream)`


# Objects a constructor makes and keeps in two attributes are two objects for the class's other
# methods: a download into one buffer's host tensor is not the other buffer's.
class Planner:
    def __init__(self):
        self.copy_stream = torch.cuda.Stream()
        self.downloads = Buffer(8)
        self.ranks = Buffer(8)

    def record(self):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            self.downloads.copy_to_cpu()

    def plan(self):
        return self.ranks.cpu.numpy().tolist()

    def read_downloads(self):
        return self.downloads.cpu.numpy().tolist()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: the host reads 'self.downloads.cpu' (tolist) while copy_ on stream 'self.copy_stream' may still be writing it; nothing makes the host wait for that stream (the copy is left pending when 'record' returns) [streamrace-host-access-before-sync]
