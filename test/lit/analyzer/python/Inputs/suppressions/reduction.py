# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import torch
import torch.distributed as dist


class Reducer:
    def __init__(self):
        self.reduction_stream = torch.cuda.Stream()

    def reduce(self, bucket):
        self.reduction_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduction_stream):
            dist.all_reduce(bucket)

    def step(self, bucket):
        self.reduce(bucket)
        return bucket.sum()


def stage(values):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    staged = torch.zeros_like(values)
    with torch.cuda.stream(side):
        staged.copy_(values, non_blocking=True)
    return staged.sum()
