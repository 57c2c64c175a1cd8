# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A training loop that marks its steps with an NVTX range, as profilers ask: a synchronize before
# the first step, and one inside each of three steps.
import torch

x = torch.ones(1024, device="cuda")
torch.cuda.synchronize()
for step in range(3):
    torch.cuda.nvtx.range_push("step")
    y = x * 2
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
print("steps done")
