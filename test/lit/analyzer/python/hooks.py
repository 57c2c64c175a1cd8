# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Gradient hooks run when autograd has written the gradient, on the stream current then (that of
# the backward operator, which need not be the default stream): a reduction stream that waits on
# the default stream before reading the gradient orders nothing (DeepSpeed #7898, Megatron-LM
# #3670). Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
import torch


class GradientBuckets:
    def __init__(self, parameters, bucket):
        self.bucket = bucket
        self.reduce_stream = torch.cuda.Stream()
        for parameter in parameters:
            parameter.register_post_accumulate_grad_hook(self.copy_on_default_stream_wait)
            parameter.register_post_accumulate_grad_hook(self.copy_on_current_stream_wait)

    def copy_on_default_stream_wait(self, parameter):
        self.reduce_stream.wait_stream(torch.cuda.default_stream())
        with torch.cuda.stream(self.reduce_stream):
            self.bucket.copy_(parameter.grad)
            # CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'parameter.grad' is read by copy_ on stream 'self.reduce_stream' while autograd on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :15:13: note: autograd writes '*.grad' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:31: note: make stream 'self.reduce_stream' wait for the current stream before entering it: `self.reduce_stream.wait_stream(torch.cuda.current_stream())`

    def copy_on_current_stream_wait(self, parameter):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            self.bucket.copy_(parameter.grad)


# DeepSpeed registers through its own helper (`deepspeed.utils.torch.register_grad_hook`), and its
# ZeRO-3 hook reaches the copy through two methods, one of them name-mangled.
from deepspeed.utils.torch import register_grad_hook


class PartitionedGradients:
    def __init__(self, parameters, buffer):
        self.buffer = buffer
        self.reduce_and_partition_stream = torch.cuda.Stream()
        self.hooks = []
        for parameter in parameters:
            def reduce_partition_and_remove_grads(*unused, parameter=parameter):
                self.reduce_ready_partitions(parameter)

            self.hooks.append(register_grad_hook(parameter, reduce_partition_and_remove_grads))

    def reduce_ready_partitions(self, parameter):
        if self.waits_on_current_stream:
            self.__add_grad_to_bucket_ordered(parameter)
        else:
            self.__add_grad_to_bucket_racy(parameter)

    def __add_grad_to_bucket_racy(self, parameter):
        self.reduce_and_partition_stream.wait_stream(torch.cuda.default_stream())
        with torch.cuda.stream(self.reduce_and_partition_stream):
            self.buffer.narrow(0, 0, parameter.grad.numel()).copy_(parameter.grad, non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:68: warning: 'parameter.grad' is read by copy_ on stream 'self.reduce_and_partition_stream' while autograd on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :44:17: note: 'reduce_ready_partitions' is called here
            # CHECK-MESSAGES: :52:13: note: '__add_grad_to_bucket_racy' is called here
            # CHECK-MESSAGES: :46:31: note: autograd writes '*.grad' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-5]]:68: note: make stream 'self.reduce_and_partition_stream' wait for the current stream before entering it: `self.reduce_and_partition_stream.wait_stream(torch.cuda.current_stream())`

    def __add_grad_to_bucket_ordered(self, parameter):
        self.reduce_and_partition_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_and_partition_stream):
            self.buffer.narrow(0, 0, parameter.grad.numel()).copy_(parameter.grad, non_blocking=True)


# A gradient hook fires once per parameter, one firing after the other: a ping-pong bucket that
# one firing hands to the reduction stream is refilled on the current stream two buckets later
# (DeepSpeed #5523). The program orders the current stream after the reduction stream elsewhere
# (an epilogue), so only the two firings in sequence show the race.
class PingPongBuckets:
    def __init__(self, parameters, size):
        self.buffers = torch.empty(2, size, device="cuda")
        self.index = 0
        self.filled = 0
        self.reduction_stream = torch.cuda.Stream()
        for parameter in parameters:
            parameter.register_post_accumulate_grad_hook(self.add_racy)
            parameter.register_post_accumulate_grad_hook(self.add_ordered)

    def reduce(self):
        self.reduction_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduction_stream):
            torch.distributed.all_reduce(self.buffers[self.index])

    def add_racy(self, parameter):
        if self.is_full(parameter):
            self.reduce()
            self.index = 1 - self.index
        self.buffers[self.index].narrow(0, self.filled, parameter.numel()).copy_(parameter.grad)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'self.buffers[self.index]' is written by copy_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending by the hook's firing for the previous gradient) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-8]]:42: note: all_reduce reads and writes 'self.buffers[self.index]' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-5]]:13: note: 'reduce' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: make the current stream wait for stream 'self.reduction_stream' before this: `torch.cuda.current_stream().wait_stream(self.reduction_stream)`

    def add_ordered(self, parameter):
        if self.is_full(parameter):
            self.reduce()
            torch.cuda.current_stream().wait_stream(self.reduction_stream)
            self.index = 1 - self.index
        self.buffers[self.index].narrow(0, self.filled, parameter.numel()).copy_(parameter.grad)

    def epilogue(self):
        torch.cuda.current_stream().wait_stream(self.reduction_stream)


# A module hook made by a factory for its leaf's parameters (DeepSpeed ZeRO-3's leaf modules):
# each hook holds the `params` its factory's call was given, and gives a gradient to those the
# forward did not use. That gradient is made on the current stream; the reduction stream must
# wait for it. (`params` had been taken for a global, whose attribute stores, gathered over the
# package, told the test `param.grad is None` that it never holds.)
class LeafModuleGradients:
    def __init__(self, leaves, leaf_grads):
        self.leaf_grads = leaf_grads
        self.leaf_stream = torch.cuda.Stream()
        for leaf, params in leaves:
            leaf.register_full_backward_hook(self.make_racy_hook(params))
            leaf.register_full_backward_hook(self.make_ordered_hook(params))

    def make_racy_hook(self, params):
        def reduce_leaf_grads(module, grad_input, grad_output):
            for param in params:
                if param.grad is None:
                    param.grad = torch.zeros_like(param)
                self.reduce_racy(param)

        return reduce_leaf_grads

    def make_ordered_hook(self, params):
        def reduce_leaf_grads(module, grad_input, grad_output):
            for param in params:
                if param.grad is None:
                    param.grad = torch.zeros_like(param)
                self.reduce_ordered(param)

        return reduce_leaf_grads

    def reduce_racy(self, param):
        with torch.cuda.stream(self.leaf_stream):
            self.leaf_grads.copy_(param.grad)
            # CHECK-MESSAGES: :[[@LINE-1]]:35: warning: 'params[*].grad' is read by copy_ on stream 'self.leaf_stream', which has not waited for the current stream since 'params[*].grad' was allocated there (torch.zeros_like): its block may still be in use by earlier work [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :128:17: note: 'reduce_racy' is called here
            # CHECK-MESSAGES: :127:34: note: torch.zeros_like (allocation) writes 'params[*].grad' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-4]]:35: note: make stream 'self.leaf_stream' wait for the current stream before entering it: `self.leaf_stream.wait_stream(torch.cuda.current_stream())`

    def reduce_ordered(self, param):
        self.leaf_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.leaf_stream):
            self.leaf_grads.copy_(param.grad)
