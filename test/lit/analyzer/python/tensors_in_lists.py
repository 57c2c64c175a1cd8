# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Tensors handed on through lists (DeepSpeed's reduction buckets): the views of a flat buffer
# appended to a list, alone or in a tuple beside a rank, are what the list's elements stand for,
# so a collective over the elements on a side stream touches the buffer, and refilling it
# before the current stream waits for that stream races. A work handle returned beside a tensor
# and kept in a list is waited for through the list's elements. Each racy function has an
# ordered twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class Reducer:
    def __init__(self, size):
        self.stream = torch.cuda.Stream()
        self.flat = torch.empty(size, device="cuda")

    def reduce_bucket(self, bucket):
        for buf in bucket:
            dist.all_reduce(buf)

    def reduce(self, offsets):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            bucket = []
            for offset, numel in offsets:
                bucket.append(self.flat.narrow(0, offset, numel))
            self.reduce_bucket(bucket)

    def refill_racy(self, grads, offsets):
        self.reduce(offsets)
        self.flat.copy_(grads)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'self.flat' is written by copy_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :20:29: note: all_reduce reads and writes 'self.flat[*]' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: 'reduce' is called here
        # CHECK-MESSAGES: :28:13: note: 'reduce_bucket' is called here
        # CHECK-MESSAGES: :[[@LINE-5]]:9: note: make the current stream wait for stream 'self.stream' before this: `torch.cuda.current_stream().wait_stream(self.stream)`

    def refill_after_waiting(self, grads, offsets):
        self.reduce(offsets)
        torch.cuda.current_stream().wait_stream(self.stream)
        self.flat.copy_(grads)

    def reduce_ranked(self, offsets):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            ranked = []
            for rank, offset, numel in offsets:
                ranked.append((rank, self.flat.narrow(0, offset, numel)))
            for rank, buf in ranked:
                dist.reduce(buf, rank)

    def refill_ranked_racy(self, grads, offsets):
        self.reduce_ranked(offsets)
        self.flat.copy_(grads)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'self.flat' is written by copy_ on the current stream while reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :51:29: note: reduce reads and writes 'self.flat' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: 'reduce_ranked' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: make the current stream wait for stream 'self.stream' before this: `torch.cuda.current_stream().wait_stream(self.stream)`

    def refill_ranked_after_waiting(self, grads, offsets):
        self.reduce_ranked(offsets)
        torch.cuda.current_stream().wait_stream(self.stream)
        self.flat.copy_(grads)


# Two paths return the handle (the inputs padded or views of the gradient): the handle kept in
# the list is either one, and waiting for it waits for both.
def scatter_one(grad, parts, padded):
    inputs = []
    for i in range(parts):
        if padded:
            inputs.append(torch.zeros_like(grad))
        else:
            inputs.append(grad.narrow(0, i, 1))
    work = dist.reduce_scatter(inputs[0], inputs, async_op=True)
    return work, inputs[0]


def scatter_racy(grads, parts, padded, out):
    pending = []
    for grad in grads:
        pending.append(scatter_one(grad, parts, padded))
    for grad in grads:
        grad.copy_(out)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'grads[*]' is written by copy_ on the current stream while reduce_scatter on the process group's stream (the default group) may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :76:43: note: reduce_scatter reads 'grads[*]' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-5]]:24: note: 'scatter_one' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this


def scatter_after_waiting(grads, parts, padded, out):
    pending = []
    for grad in grads:
        pending.append(scatter_one(grad, parts, padded))
    for grad, (work, reduced) in zip(grads, pending):
        work.wait()
        grad.copy_(out)


# An element at an index the analysis does not know, of a list holding parts of one buffer, is
# some part of that buffer: reading it meets the gather still writing the parts.
def read_a_gathered_slot_before_the_gather_ends(flat, size, rank, peer):
    slots = [flat[0:size], flat[size:2 * size]]
    work = dist.all_gather(slots, slots[rank], async_op=True)
    received = slots[peer].float()
    # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'flat' is read by float on the current stream while all_gather on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:28: note: all_gather writes 'flat[*]' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:16: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    work.wait()
    return received


def read_a_gathered_slot_after_the_gather_ends(flat, size, rank, peer):
    slots = [flat[0:size], flat[size:2 * size]]
    work = dist.all_gather(slots, slots[rank], async_op=True)
    work.wait()
    return slots[peer].float()


# A list the analysis cannot name, padded with a few tensors it made (`gathered + [pad] * k`):
# the padded list's elements are the unnamed list's, so gathering into a slice of it writes what
# an element of the unnamed list names. Where each element ends up is chosen on a branch: a new
# buffer on one path, a view of the gathered element on the other; reading it reads either.
def gather_momentums(parts):
    return [part.clone() for part in parts]


def update_from_gathered_racy(parts, world, rank, out, start, end):
    gathered = gather_momentums(parts)
    padded = gathered + [torch.empty_like(gathered[-1])] * (world - len(gathered) % world)
    handles = []
    for base in range(0, len(parts), world):
        handles.append(dist.all_gather(padded[base:base + world], padded[base + rank],
                                       async_op=True))
    for index in range(len(parts)):
        momentum = gathered[index]
        if end > momentum.numel():
            update = torch.zeros(end - start, device="cuda")
        else:
            update = momentum.view(-1)[start:end]
        out.copy_(update)
        # CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'update' is read by copy_ on the current stream while all_gather on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-10]]:40: note: all_gather writes 'gathered[*]' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:19: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this


def update_from_gathered_after_waiting(parts, world, rank, out, start, end):
    gathered = gather_momentums(parts)
    padded = gathered + [torch.empty_like(gathered[-1])] * (world - len(gathered) % world)
    handles = []
    for base in range(0, len(parts), world):
        handles.append(dist.all_gather(padded[base:base + world], padded[base + rank],
                                       async_op=True))
    for handle in handles:
        handle.wait()
    for index in range(len(parts)):
        momentum = gathered[index]
        if end > momentum.numel():
            update = torch.zeros(end - start, device="cuda")
        else:
            update = momentum.view(-1)[start:end]
        out.copy_(update)


# `x[lo:hi] = v` copies v's bytes into x's: it reads v.
def stage_reduced_racy(grad, numel):
    staging = torch.empty(2 * numel, device="cuda")
    work = dist.all_reduce(grad, async_op=True)
    staging[:numel] = grad.view(-1)
    # CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'grad' is read by __setitem__ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:28: note: all_reduce reads and writes 'grad' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:23: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    work.wait()
    return staging


def stage_reduced_after_waiting(grad, numel):
    staging = torch.empty(2 * numel, device="cuda")
    work = dist.all_reduce(grad, async_op=True)
    work.wait()
    staging[:numel] = grad.view(-1)
    return staging


# A dict the function built and stores tensors in under names it does not know holds them
# all: handing out the dict hands out each (TorchRec's per-module results of a prefetch).
def scaled_per_name_handed_out_racy(inputs, names):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    scaled = {}
    for name in names:
        with torch.cuda.stream(side):
            value = torch.mul(inputs[name], 2)
        value.record_stream(torch.cuda.current_stream())
        scaled[name] = value
    return scaled
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'value' is returned to the caller of 'scaled_per_name_handed_out_racy', which uses it on the current stream, while torch.mul on stream 'side' may still be writing it; nothing makes the current stream wait for that stream before the return [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-5]]:21: note: torch.mul writes 'value' on stream 'side' here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the current stream wait for stream 'side' before returning: `torch.cuda.current_stream().wait_stream(side)`


def scaled_per_name_handed_out_after_waiting(inputs, names):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    scaled = {}
    for name in names:
        with torch.cuda.stream(side):
            value = torch.mul(inputs[name], 2)
        value.record_stream(torch.cuda.current_stream())
        scaled[name] = value
    torch.cuda.current_stream().wait_stream(side)
    return scaled
