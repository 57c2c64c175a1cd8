# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Shapes met in DeepSpeed, FSDP and Megatron-LM that the check once misread: a return from a
# stream context, a stream reached through a parameter's attribute, a branch only an empty group
# takes, a flag a callee and its caller test, a helper keeping a tensor in a dict, ping-pong
# buffers reached through two paths. Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
import functools

import torch
import torch.distributed as dist


class Reduction:
    def __init__(self):
        self.overlap = True
        self.reduction_stream = torch.cuda.Stream()

    def reduce(self, bucket):
        if self.overlap:
            stream = self.reduction_stream
            stream.wait_stream(torch.cuda.current_stream())
        else:
            stream = torch.cuda.current_stream()
        with torch.cuda.stream(stream):
            dist.all_reduce(bucket)
            return bucket

    def reduce_then_read_racy(self, bucket):
        self.reduce(bucket)
        return bucket.sum()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'bucket' is read by sum on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-7]]:29: note: all_reduce reads and writes 'bucket' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: 'reduce' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:16: note: make the current stream wait for stream 'self.reduction_stream' before this: `torch.cuda.current_stream().wait_stream(self.reduction_stream)`

    def reduce_then_read_ordered(self, bucket):
        self.reduce(bucket)
        if self.overlap:
            torch.cuda.current_stream().wait_stream(self.reduction_stream)
        return bucket.sum()


class State:
    def __init__(self, stream, bucket):
        self.post_backward_stream = stream
        self.bucket = bucket


def post_backward_racy(state, param):
    with torch.cuda.stream(state.post_backward_stream):
        state.bucket.copy_(param.grad)
        # CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'param.grad' is read by copy_ on stream 'state.post_backward_stream' while autograd on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+20]]:5: note: autograd writes '*.grad' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:28: note: make stream 'state.post_backward_stream' wait for the current stream before entering it: `state.post_backward_stream.wait_stream(torch.cuda.current_stream())`


def post_backward_ordered(state, param):
    state.post_backward_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(state.post_backward_stream):
        state.bucket.copy_(param.grad)


def all_reduce_after_reduce_scatter(world_size, output, reduce_scatter_stream, all_reduce_stream):
    with torch.cuda.stream(reduce_scatter_stream):
        output.mul_(2)
    if world_size >= 1:
        all_reduce_stream.wait_stream(reduce_scatter_stream)
    with torch.cuda.stream(all_reduce_stream):
        dist.all_reduce(output)


def register(parameter, state):
    parameter.register_post_accumulate_grad_hook(functools.partial(post_backward_racy, state))
    parameter.register_post_accumulate_grad_hook(functools.partial(post_backward_ordered, state))


class OffloadGroup:
    def __init__(self):
        self._tensors = {}
        self.staging = torch.empty(64, 1024, pin_memory=True, device="cpu")

    def keep(self, tag, tensor):
        self._tensors[tag] = tensor

    def stage(self, row, tensor):
        self.staging[row] = tensor


class Offloader:
    """A helper that keeps a reference in a dict copies no bytes; one that stores into a tensor's
    row does."""

    def __init__(self):
        self.d2h_stream = torch.cuda.Stream()

    def offload_kept(self, group, tag, activation):
        with torch.cuda.stream(self.d2h_stream):
            backup = torch.empty(activation.shape, pin_memory=True, device="cpu")
            backup.copy_(activation, non_blocking=True)
            group.keep(tag, (activation.device, backup))

    def offload_staged_racy(self, group, row, activation):
        with torch.cuda.stream(self.d2h_stream):
            backup = torch.empty(activation.shape, pin_memory=True, device="cpu")
            backup.copy_(activation, non_blocking=True)
            group.stage(row, backup)
            # CHECK-MESSAGES: :[[@LINE-1]]:30: warning: the host reads 'backup' (stage) while copy_ on stream 'self.d2h_stream' may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: copy_ writes 'backup' on stream 'self.d2h_stream' here
            # CHECK-MESSAGES: :[[@LINE-3]]:30: note: make the host wait for stream 'self.d2h_stream' before this: `torch.cuda.current_stream().synchronize()`


class PingPongReducer:
    """The bucket refilled is `buffer[1 - index]` of the one a loop over all buckets reduced as
    `buffer[index]`: one bucket or two, never one buffer."""

    def __init__(self):
        self.reduction_stream = torch.cuda.Stream()

    def reduce_buckets(self, dtype=None):
        dtypes = sorted(self.buckets.keys())
        if dtype is not None:
            dtypes = [dtype]
        for dtype in dtypes:
            bucket = self.buckets[dtype]
            self.reduction_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.reduction_stream):
                bucket.buffer[bucket.index].div_(2)

    def add_grad_to_the_other_buffer(self, dtype, grad):
        bucket = self.buckets[dtype]
        self.reduce_buckets(dtype)
        bucket.index = 1 - bucket.index
        bucket.buffer[bucket.index].copy_(grad)

    def add_grad_to_the_reduced_buffer_racy(self, dtype, grad):
        bucket = self.buckets[dtype]
        self.reduce_buckets(dtype)
        bucket.buffer[bucket.index].copy_(grad)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'self.buckets[dtype].buffer[self.buckets[dtype].index]' is written by copy_ on the current stream while div_ on stream 'self.reduction_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-13]]:17: note: div_ reads and writes 'self.buckets[dtypes[*]].buffer[self.buckets[dtypes[*]].index]' on stream 'self.reduction_stream' here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: 'reduce_buckets' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: make the current stream wait for stream 'self.reduction_stream' before this: `torch.cuda.current_stream().wait_stream(self.reduction_stream)`

    def finish(self):
        torch.cuda.current_stream().wait_stream(self.reduction_stream)


class Accumulator:
    """`new_zeros` takes the receiver's dtype and device, none of its bytes; `clone` reads them."""

    def __init__(self):
        self.side_stream = torch.cuda.Stream()

    def zeros_like_a_buffer_in_flight(self, grad):
        with torch.cuda.stream(self.side_stream):
            grad.mul_(2)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'grad' is read and written by mul_ on stream 'self.side_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:5: note: the caller's work writes 'grad' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.side_stream' wait for the current stream before entering it: `self.side_stream.wait_stream(torch.cuda.current_stream())`
        return grad.new_zeros(grad.shape)

    def copy_of_a_buffer_in_flight_racy(self, grad):
        with torch.cuda.stream(self.side_stream):
            grad.mul_(2)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'grad' is read and written by mul_ on stream 'self.side_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:5: note: the caller's work writes 'grad' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.side_stream' wait for the current stream before entering it: `self.side_stream.wait_stream(torch.cuda.current_stream())`
        return grad.clone()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'grad' is read by clone on the current stream while mul_ on stream 'self.side_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-6]]:13: note: mul_ reads and writes 'grad' on stream 'self.side_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'self.side_stream' before this: `torch.cuda.current_stream().wait_stream(self.side_stream)`
