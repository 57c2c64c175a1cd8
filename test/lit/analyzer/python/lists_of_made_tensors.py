# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Lists the code builds of tensors it makes (a comprehension of `empty_like`, a dict of them per
# name, a literal pair, a list filled by appends in a loop, an attribute holding two buffers):
# bound to a name, their elements are that name's elements, so that a collective writing one and
# a later use of it meet. Elements with indices known to differ stay apart (`pair[0]` and
# `pair[1]`, `buffers[i]` and `buffers[1 - i]`), and a list made anew in each iteration of a
# loop is a new list. A branch choosing an element or the whole list (`recvd[0] if one else
# tuple(recvd)`) holds some part of the list. Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


def gather_racy(x, world_size):
    gathered = [torch.empty_like(x) for _ in range(world_size)]
    work = dist.all_gather(gathered, x, async_op=True)
    total = gathered[0] + gathered[1]
    # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'gathered[0]' is read by + on the current stream while all_gather on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:28: note: all_gather writes 'gathered' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    work.wait()
    return total


def gather_after_waiting(x, world_size):
    gathered = [torch.empty_like(x) for _ in range(world_size)]
    work = dist.all_gather(gathered, x, async_op=True)
    work.wait()
    return gathered[0] + gathered[1]


def gather_each_step(xs, world_size):
    totals = []
    for x in xs:
        gathered = [torch.empty_like(x) for _ in range(world_size)]
        work = dist.all_gather(gathered, x, async_op=True)
        work.wait()
        totals.append(gathered[0].sum())
    return totals


def per_name_racy(params):
    grads = {name: torch.zeros_like(p) for name, p in params}
    work = dist.all_reduce(grads["weight"], async_op=True)
    total = grads["weight"].sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'grads['weight']' is read by sum on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:28: note: all_reduce reads and writes 'grads['weight']' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    work.wait()
    return total


def per_name_after_waiting(params):
    grads = {name: torch.zeros_like(p) for name, p in params}
    work = dist.all_reduce(grads["weight"], async_op=True)
    work.wait()
    return grads["weight"].sum()


def appended_racy(x, n):
    side = torch.cuda.Stream()
    parts = []
    for _ in range(n):
        parts.append(torch.zeros_like(x))
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        dist.all_reduce(parts[0])
    parts[0].add_(x)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'parts[0]' is read and written by add_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:25: note: all_reduce reads and writes 'parts[0]' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: make the current stream wait for stream 'side' before this: `torch.cuda.current_stream().wait_stream(side)`
    return parts


def appended_after_waiting(x, n):
    side = torch.cuda.Stream()
    parts = []
    for _ in range(n):
        parts.append(torch.zeros_like(x))
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        dist.all_reduce(parts[0])
    torch.cuda.current_stream().wait_stream(side)
    parts[0].add_(x)
    return parts


def pair_racy(x):
    side = torch.cuda.Stream()
    pair = (torch.zeros_like(x), torch.zeros_like(x))
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        dist.all_reduce(pair[0])
    pair[0].add_(x)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'pair[0]' is read and written by add_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:25: note: all_reduce reads and writes 'pair[0]' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: make the current stream wait for stream 'side' before this: `torch.cuda.current_stream().wait_stream(side)`
    return pair


def pair_other_element(x):
    side = torch.cuda.Stream()
    pair = (torch.zeros_like(x), torch.zeros_like(x))
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        dist.all_reduce(pair[0])
    pair[1].add_(x)
    torch.cuda.current_stream().wait_stream(side)
    return pair


class DoubleBuffered:
    # Each bucket is refilled two reductions after it was reduced, and the current stream never
    # waits for the reduction stream (DeepSpeed #5606's IPG buffers).
    def __init__(self, params, size):
        self.reduction_stream = torch.cuda.Stream()
        self.buffers = [torch.empty(size, device="cuda"), torch.empty(size, device="cuda")]
        self.index = 0
        self.filled = 0
        self.size = size
        for p in params:
            p.register_post_accumulate_grad_hook(self.add_gradient)

    def add_gradient(self, param):
        if self.filled + param.numel() > self.size:
            self.reduce_bucket()
            self.index = 1 - self.index
            self.filled = 0
        slot = self.buffers[self.index].narrow(0, self.filled, param.numel())
        slot.copy_(param.grad.view(-1))
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'self.buffers[self.index]' is written by copy_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending by the hook's firing for the previous gradient) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+8]]:29: note: all_reduce reads and writes 'self.buffers[self.index]' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-7]]:13: note: 'reduce_bucket' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: make the current stream wait for stream 'self.reduction_stream' before this: `torch.cuda.current_stream().wait_stream(self.reduction_stream)`
        self.filled += param.numel()

    def reduce_bucket(self):
        self.reduction_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduction_stream):
            dist.all_reduce(self.buffers[self.index])


class DoubleBufferedWaited:
    def __init__(self, params, size):
        self.reduction_stream = torch.cuda.Stream()
        self.buffers = [torch.empty(size, device="cuda") for _ in range(2)]
        self.index = 0
        self.filled = 0
        self.size = size
        for p in params:
            p.register_post_accumulate_grad_hook(self.add_gradient)

    def add_gradient(self, param):
        if self.filled + param.numel() > self.size:
            self.reduce_bucket()
            self.index = 1 - self.index
            self.filled = 0
        slot = self.buffers[self.index].narrow(0, self.filled, param.numel())
        slot.copy_(param.grad.view(-1))
        self.filled += param.numel()

    def reduce_bucket(self):
        self.reduction_stream.wait_stream(torch.cuda.current_stream())
        # The bucket reduced the time before last is refilled after this: wait for it.
        torch.cuda.current_stream().wait_stream(self.reduction_stream)
        with torch.cuda.stream(self.reduction_stream):
            dist.all_reduce(self.buffers[self.index])


class PointToPoint:
    def __init__(self):
        self.comm_stream = torch.cuda.Stream()

    def _queue(self, op, tensors, peer):
        with torch.cuda.stream(self.comm_stream):
            for tensor in tensors:
                op(tensor, peer)

    def receive_racy(self, shapes, one):
        received = [torch.empty(shape, device="cuda") for shape in shapes]
        self._queue(dist.irecv, received, 0)
        self.inputs = received[0] if one else tuple(received)
        return received[0].sum()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'received[0]' is read by sum on the current stream while irecv on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-8]]:20: note: irecv writes 'received[*]' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-5]]:9: note: '_queue' is called here

    def receive_after_waiting(self, shapes, one):
        received = [torch.empty(shape, device="cuda") for shape in shapes]
        self._queue(dist.irecv, received, 0)
        self.inputs = received[0] if one else tuple(received)
        torch.cuda.current_stream().wait_stream(self.comm_stream)
        return received[0].sum()
