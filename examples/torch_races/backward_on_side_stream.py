# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Several streams in one training step: the forward pass and loss.backward() run on a side
# stream, so the backward kernels that produce the gradients run there too, and the optimizer
# step on the default stream reads the gradients without waiting for it (PyTorch's CUDA
# semantics notes call this unsafe). `--fixed`: the default stream waits for the side stream
# before the step.
import sys

import torch

model = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, foreach=False)
inputs = torch.randn(16, 32, device="cuda")
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    loss = model(inputs).square().mean()
    loss.backward()
if "--fixed" in sys.argv:
    torch.cuda.current_stream().wait_stream(side)
optimizer.step()  # reads the gradients on the default stream
torch.cuda.synchronize()
print("step done")
