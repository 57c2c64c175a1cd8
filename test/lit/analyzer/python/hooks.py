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
