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
