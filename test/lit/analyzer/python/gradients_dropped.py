# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# `param.grad = None` drops the gradient autograd made on the stream current for the forward
# operators: autograd keeps no other reference, so the caching allocator can give its block to
# that stream's next allocation at once, while another stream may still be reading it (DeepSpeed
# ZeRO-3 records the current stream on each gradient before it frees it). Each racy method has
# ordered twins.
# RUN: %check_streamrace %s %t
import torch


class GradientReducer:
    def __init__(self, numel):
        self.reduce_stream = torch.cuda.Stream()
        self.total = torch.zeros(numel, device="cuda")

    def reduce_and_free_racy(self, param):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            self.total.add_(param.grad)
        param.grad = None
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'param.grad' is dropped here while add_ reads 'param.grad' on stream 'self.reduce_stream' may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-3]]:29: note: add_ reads 'param.grad' on stream 'self.reduce_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: tell the allocator about that use before this: `param.grad.record_stream(self.reduce_stream)`
        # CHECK-FIXES: {{^}}        param.grad.record_stream(self.reduce_stream){{$}}
        # CHECK-FIXES-NEXT: {{^}}        param.grad = None{{$}}

    def reduce_record_and_free(self, param):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            self.total.add_(param.grad)
        param.grad.record_stream(self.reduce_stream)
        param.grad = None

    def reduce_wait_and_free(self, param):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            self.total.add_(param.grad)
        torch.cuda.current_stream().wait_stream(self.reduce_stream)
        param.grad = None

    def reduce_and_hand_back(self, param):
        # The caller gets the gradient: unsetting the attribute frees nothing.
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            self.total.add_(param.grad)
        grad = param.grad
        param.grad = None
        return grad

    def reduce_all_and_free_racy(self, params):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            for param in params:
                self.total.add_(param.grad)
        for param in params:
            param.grad = None
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'params[*].grad' is dropped here while add_ reads 'params[*].grad' on stream 'self.reduce_stream' may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
            # CHECK-MESSAGES: :[[@LINE-4]]:33: note: add_ reads 'params[*].grad' on stream 'self.reduce_stream' here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: tell the allocator about that use before this: `param.grad.record_stream(self.reduce_stream)`
            # CHECK-FIXES: {{^}}            param.grad.record_stream(self.reduce_stream){{$}}
            # CHECK-FIXES-NEXT: {{^}}            param.grad = None{{$}}

    def reduce_all_and_free_after_the_wait(self, params):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            for param in params:
                self.total.add_(param.grad)
        torch.cuda.current_stream().wait_stream(self.reduce_stream)
        for param in params:
            param.grad = None

    def reduce_and_delete_racy(self, param):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            self.total.add_(param.grad)
        del param.grad
        # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'param.grad' is dropped here while add_ reads 'param.grad' on stream 'self.reduce_stream' may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-3]]:29: note: add_ reads 'param.grad' on stream 'self.reduce_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:13: note: tell the allocator about that use before this: `param.grad.record_stream(self.reduce_stream)`

    def reduce_record_if_set_and_free(self, param):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            if param.grad is not None:
                self.total.add_(param.grad)
        if param.grad is not None:
            param.grad.record_stream(self.reduce_stream)
        param.grad = None


class BucketedGradients:
    """Gradients pointed into a flat bucket by one method and freed by another: what the second
    finds in `weight.grad` may be a view of the bucket, whose block the bucket keeps."""

    def __init__(self, numel):
        self.reduce_stream = torch.cuda.Stream()
        self.bucket = torch.empty(numel, device="cuda")
        self.total = torch.zeros(numel, device="cuda")
        self.offset = 0

    def add_to_bucket(self, weight):
        numel = weight.grad.numel()
        slot = self.bucket.narrow(0, self.offset, numel)
        slot.copy_(weight.grad.view(-1))
        weight.grad.data = slot.view_as(weight.grad)
        self.offset += numel

    def reduce_and_unset(self, weights):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            for weight in weights:
                self.total.add_(weight.grad)
        for weight in weights:
            weight.grad = None
