# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A side stream fills a buffer that the current stream then reads, with nothing making the
# current stream wait (`--fixed`: it waits with wait_stream, as PyTorch's documentation asks).
# Copies only: every one of them is exact whatever extents the kernels get.
import sys

import torch

source = torch.arange(1024.0).cuda()
staged = torch.empty(1024, device="cuda")
result = torch.empty(1024, device="cuda")
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    staged.copy_(source)
if "--fixed" in sys.argv:
    torch.cuda.current_stream().wait_stream(side)
result.copy_(staged)
torch.cuda.synchronize()
print("first element after the copy:", result[0:1].cpu().item())
