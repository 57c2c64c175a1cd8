# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# What a function hands to code the check cannot see (its caller, when no function of the
# package calls it; a CPU optimizer reading the gradients it was given) while stream work on it
# still runs: a host tensor a non-blocking copy is still filling, returned or stored into an
# object the function was given, with no host wait before the return; a tensor a side stream is
# still writing, returned without the caller's stream waiting for it. Each racy function has an
# ordered twin.
# RUN: %check_streamrace %s %t
import torch


def logits_to_host_racy(logits):
    host = logits.to("cpu", non_blocking=True)
    return host
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: the host tensor 'host' is returned to the caller of 'logits_to_host_racy' while logits.to on the current stream may still be writing it; nothing makes the host wait for that stream, and the caller reads it on the host [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: logits.to writes 'host' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()` (or copy with non_blocking=False)
    # CHECK-FIXES: torch.cuda.current_stream().synchronize()
    # CHECK-FIXES-NEXT: return host


def logits_to_host_in_the_return_racy(logits):
    return logits.to("cpu", non_blocking=True)
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: the host tensor 'logits.to('cpu', non_blocking=True)' is returned to the caller of 'logits_to_host_in_the_return_racy' while logits.to on the current stream may still be writing it; nothing makes the host wait for that stream, and the caller reads it on the host [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-2]]:12: note: logits.to writes 'logits.to('cpu', non_blocking=True)' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()` (or copy with non_blocking=False)


def logits_to_host_synchronized(logits):
    host = logits.to("cpu", non_blocking=True)
    torch.cuda.current_stream().synchronize()
    return host


def logits_to_host_blocking(logits):
    return logits.to("cpu")


# An upload's result is the caller's to use on the current stream, where the copy runs.
def batch_to_device(batch):
    return batch.to("cuda", non_blocking=True)


# A helper the package calls: its caller, which the check follows, meets the copy itself.
def _stage_on_host(values):
    return values.to("cpu", non_blocking=True)


def staged_and_waited_for(values):
    host = _stage_on_host(values)
    torch.cuda.current_stream().synchronize()
    return host.numpy()


# Gradients offloaded to pinned host buffers for an optimizer stepping on the host.
class HostGradientOffload:
    def __init__(self, params):
        for p in params:
            p._host_grad = torch.zeros_like(p, device="cpu").pin_memory()

    def reduced_hook_racy(self, param, reduced):
        param._host_grad.copy_(reduced, non_blocking=True)
        param.grad = param._host_grad
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: the host tensor 'param._host_grad' is handed on to 'param.grad' while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream before 'reduced_hook_racy' returns, and code outside reads it there on the host [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: copy_ writes 'param._host_grad' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()` (or copy with non_blocking=False)

    def reduced_hook_blocking(self, param, reduced):
        param._host_grad.copy_(reduced, non_blocking=False)
        param.grad = param._host_grad

    def reduced_hook_synchronized(self, param, reduced):
        param._host_grad.copy_(reduced, non_blocking=True)
        param.grad = param._host_grad
        torch.cuda.current_stream().synchronize()


# A norm reduced on side streams (kept in a list) by a method the package's hooks call, and
# read back by properties: the caller uses what a property returns on its current stream.
class NormTracker:
    def __init__(self, count):
        self.streams = []
        for _ in range(count):
            self.streams.append(torch.cuda.Stream())

    def reduce(self, shard):
        self.streams[0].wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.streams[0]):
            self._norm = torch.linalg.vector_norm(shard) ** 2
            self._norm.sqrt_()

    @property
    def norm_racy(self):
        return self._norm
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'self._norm' is returned to the caller of 'norm_racy', which uses it on the current stream, while ** on stream 'self.streams[0]' may still be writing it; nothing makes the current stream wait for that stream before the return (the write is left pending when 'reduce' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :89:26: note: ** writes 'self._norm' on stream 'self.streams[0]' here
        # CHECK-MESSAGES: :90:13: note: sqrt_ reads and writes 'self._norm' on stream 'self.streams[0]' here
        # CHECK-MESSAGES: :[[@LINE-4]]:16: note: make the current stream wait for stream 'self.streams[0]' before returning: `torch.cuda.current_stream().wait_stream(self.streams[0])`
        # CHECK-FIXES: torch.cuda.current_stream().wait_stream(self.streams[0])
        # CHECK-FIXES-NEXT: return self._norm

    @property
    def norm_waited(self):
        for stream in self.streams:
            torch.cuda.current_stream().wait_stream(stream)
        self._norm.record_stream(torch.cuda.current_stream())
        return self._norm


class SideStreamScaler:
    def __init__(self):
        self.side = torch.cuda.Stream()

    def scaled_racy(self, x):
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            y = torch.mul(x, 2)
        return y
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'y' is returned to the caller of 'scaled_racy', which uses it on the current stream, while torch.mul on stream 'self.side' may still be writing it; nothing makes the current stream wait for that stream before the return [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-3]]:17: note: torch.mul writes 'y' on stream 'self.side' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'self.side' before returning: `torch.cuda.current_stream().wait_stream(self.side)`

    def scaled_waited(self, x):
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            y = torch.mul(x, 2)
        torch.cuda.current_stream().wait_stream(self.side)
        y.record_stream(torch.cuda.current_stream())
        return y


# A name bound on two paths is either object: an activation still on the device, or one staged
# back from the host on a side stream. What the caller gets may be the staged one. Each flag is
# tested once, so the two paths are joined into one name before the return.
class ActivationStash:
    def __init__(self):
        self.side = torch.cuda.Stream()
        self.on_device = {}
        self.on_host = {}

    def fetch_racy(self, key, kept):
        if kept:
            activation = self.on_device[key]
        else:
            host = self.on_host[key]
            with torch.cuda.stream(self.side):
                staged = host.to("cuda", non_blocking=True)
            activation = staged
        return activation
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'staged' is returned to the caller of 'fetch_racy', which uses it on the current stream, while host.to on stream 'self.side' may still be writing it; nothing makes the current stream wait for that stream before the return [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-4]]:26: note: host.to writes 'staged' on stream 'self.side' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'self.side' before returning: `torch.cuda.current_stream().wait_stream(self.side)`

    def fetch_waited(self, key, resident):
        if resident:
            activation = self.on_device[key]
        else:
            host = self.on_host[key]
            with torch.cuda.stream(self.side):
                staged = host.to("cuda", non_blocking=True)
            torch.cuda.current_stream().wait_stream(self.side)
            staged.record_stream(torch.cuda.current_stream())
            activation = staged
        return activation


# A class whose `wait()` only makes the current stream wait for its streams hands that wait to
# its caller, as a collective's work handle does: what `pad` returns while `self.side` still fills
# it is for the caller to wait for (SideStreamScaler above, with no such method, is reported).
class SideStreamPadder:
    def __init__(self):
        self.side = torch.cuda.Stream()

    def pad(self, x, rows):
        padded = torch.zeros(rows + 2, x.shape[1], device=x.device)
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            padded[1:rows + 1].copy_(x)
        return padded

    def wait(self):
        current = torch.cuda.current_stream()
        current.wait_stream(self.side)


def register(model, tracker):
    for p in model.parameters():
        p.register_hook(lambda grad: tracker.reduce(grad))


# The same norm, where the package drains the reduction stream at the end of each step: the
# program makes the host wait for that stream, and the property's caller is taken to read the
# norm after it (as work left pending across calls is, where the package orders the streams).
class DrainedNormTracker:
    def __init__(self):
        self.reduction = torch.cuda.Stream()

    def reduce(self, shard):
        self.reduction.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduction):
            self._drained_norm = torch.linalg.vector_norm(shard)

    def end_of_step(self):
        self.reduction.synchronize()

    @property
    def drained_norm(self):
        return self._drained_norm


# A method named as a builtin (`next`) that the package calls only as the builtin, on an
# iterator, is still called from outside only: a bare name never reaches a method.
class Prefetcher:
    def __init__(self, loader):
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        batch = next(self.loader)
        with torch.cuda.stream(self.stream):
            self.next_input = batch.cuda(non_blocking=True)

    def next(self):
        batch = self.next_input
        self.preload()
        return batch
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'self.next_input' is returned to the caller of 'next', which uses it on the current stream, while batch.cuda on stream 'self.stream' may still be writing it; nothing makes the current stream wait for that stream before the return [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: 'preload' is called here
        # CHECK-MESSAGES: :[[@LINE-8]]:31: note: batch.cuda writes 'self.next_input' on stream 'self.stream' here
        # CHECK-MESSAGES: :[[@LINE-4]]:16: note: make the current stream wait for stream 'self.stream' before returning: `torch.cuda.current_stream().wait_stream(self.stream)`


class WaitingPrefetcher:
    def __init__(self, loader):
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        batch = next(self.loader)
        with torch.cuda.stream(self.stream):
            self.next_input = batch.cuda(non_blocking=True)

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        batch = self.next_input
        batch.record_stream(torch.cuda.current_stream())
        self.preload()
        return batch
