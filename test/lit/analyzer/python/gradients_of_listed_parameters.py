# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A list of parameters handed to a call reads the parameters, not the gradients autograd left
# in them (ZeRO-3 checks a bucket's parameters' process groups, then fills or reduces their
# gradients on its reduction stream). A list of the gradients themselves is read.
# Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
import torch
from partitioning import check_partition_groups


# The package's other class keeps a flat tensor under the same name: the check takes what a
# `params` attribute holds for tensors.
class FlatParameters:
    def __init__(self, numel):
        self.params = torch.empty(numel, device="cuda")

    def numel(self):
        return self.params.numel()


class BucketReducer:
    def __init__(self, bucket):
        self.side = torch.cuda.Stream()
        self.bucket = bucket

    def parameters_checked_while_their_gradients_are_reduced(self):
        params = self.bucket.params
        self.side.wait_stream(torch.cuda.current_stream())
        check_partition_groups(params)
        with torch.cuda.stream(self.side):
            for param in params:
                param.grad.div_(2)
        torch.cuda.current_stream().wait_stream(self.side)

    def gradients_checked_while_they_are_reduced_racy(self):
        params = self.bucket.params
        self.side.wait_stream(torch.cuda.current_stream())
        check_partition_groups([param.grad for param in params])
        with torch.cuda.stream(self.side):
            for param in params:
                param.grad.div_(2)
        # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'self.bucket.params[*].grad' is read and written by div_ on stream 'self.side' while partitioning.check_partition_groups on the current stream may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:32: note: partitioning.check_partition_groups reads 'self.bucket.params[*].grad' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:17: note: make stream 'self.side' wait for the current stream before entering it: `self.side.wait_stream(torch.cuda.current_stream())`
        torch.cuda.current_stream().wait_stream(self.side)
