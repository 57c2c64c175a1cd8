# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A side stream writes the view x[4:] while the current stream sums all of x: the sum reads the
# bytes the view writes. `--fixed`: the current stream waits for the side stream first.
# `--disjoint`: the sum reads x[:4] only, which the view never touches. Ranges are bytes, not
# data_ptr keys: the view's data_ptr is not x's.
import sys

import torch

x = torch.zeros(16, device="cuda")
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    x[4:].add_(1.0)  # writes elements 4..15
if "--fixed" in sys.argv:
    torch.cuda.current_stream().wait_stream(side)
total = x[:4].sum() if "--disjoint" in sys.argv else x.sum()
torch.cuda.synchronize()
print("sum taken")
