# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Synchronizations of each kind a PyTorch program writes, for `streamrace report --advise=sync`:
# a side stream's wait for the current stream before it reads what the current stream wrote,
# the same wait made twice, a host wait for the side stream where the current stream could wait
# for it instead, and a device synchronize right before a blocking `.item()`.
import torch

side = torch.cuda.Stream()
main = torch.cuda.current_stream()
source = torch.ones(1 << 16, device="cuda")

side.wait_stream(main)
side.wait_stream(main)
with torch.cuda.stream(side):
    doubled = source * 2
side.synchronize()
total = doubled.sum()
torch.cuda.synchronize()
print("total:", total.item())
