# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Times training steps of a small launch-bound model (many small operators), for
run_torch_overhead.py: prints the steps' median wall time and the aten operators one step runs.

Usage: model_steps.py STEPS
"""
import statistics
import sys
import time

import torch
from torch.utils._python_dispatch import TorchDispatchMode


class _Count(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.operators = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.operators += 1
        return func(*args, **(kwargs or {}))


def main():
    steps = int(sys.argv[1])
    torch.manual_seed(0)
    # Tiny layers: on a GPU every kernel of this model is shorter than its launch; on the
    # emulator, whose cuBLAS stand-in multiplies on the CPU, larger ones would time the CPU gemm
    # instead of the operators' overhead.
    layers = [torch.nn.Linear(16, 16), torch.nn.ReLU()] * 4
    model = torch.nn.Sequential(*layers, torch.nn.Linear(16, 1)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, foreach=False)
    inputs = torch.randn(8, 16, device="cuda")

    def step():
        optimizer.zero_grad()
        loss = model(inputs).square().mean()
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()

    step()  # warm-up: first-call costs (cuBLAS handles, allocator segments) are not a step's
    counter = _Count()
    with counter:
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    print("operators per step: %d" % counter.operators)
    print("median step: %.3f ms" % (statistics.median(times) * 1e3))


if __name__ == "__main__":
    main()
