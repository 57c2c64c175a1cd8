# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Input of hand_over_order.test: two tensors a side stream made, handed to the current stream
# without record_stream in one step and dropped; the side stream's next tensor may take either
# block.
import torch


class PairPrefetcher:
    def __init__(self, model):
        self.model = model
        self.copy_stream = torch.cuda.Stream()
        self.batch = None
        self.mask = None

    def copy_in(self, host, host_mask):
        with torch.cuda.stream(self.copy_stream):
            self.batch = host.to("cuda", non_blocking=True)
            self.mask = host_mask.to("cuda", non_blocking=True)

    def step(self, loader):
        self.copy_in(next(loader), next(loader))
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        out = self.model(self.batch, self.mask)
        self.batch = None
        self.mask = None
        self.copy_in(next(loader), next(loader))
        return out
