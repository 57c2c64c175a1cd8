# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import torch

from trainer.zero.stage3 import Stage3Optimizer
from trainer.offload.base import LocalOptimizer


class OffloadedStage3(Stage3Optimizer):
    """Its base, in a module not given, calls partition_grads where it chooses."""

    def __init__(self, size):
        self.cpu_grad = torch.empty(size, pin_memory=True)

    def partition_grads(self, grad):
        self.cpu_grad.copy_(grad, non_blocking=True)

    def step(self):
        return self.cpu_grad.sum()


class OffloadedLocal(LocalOptimizer):
    """Its base is given: nothing calls partition_grads but the code outside."""

    def __init__(self, size):
        self.cpu_grad = torch.empty(size, pin_memory=True)

    def partition_grads(self, grad):
        self.cpu_grad.copy_(grad, non_blocking=True)

    def step(self):
        return self.cpu_grad.sum()


class OffloadedTorch(torch.optim.Optimizer):
    """A base of another project does not call the project's methods."""

    def __init__(self, size):
        self.cpu_grad = torch.empty(size, pin_memory=True)

    def partition_grads(self, grad):
        self.cpu_grad.copy_(grad, non_blocking=True)

    def step(self):
        return self.cpu_grad.sum()
