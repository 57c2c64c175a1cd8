# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import torch


def ordered(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(x)
    torch.cuda.current_stream().wait_stream(side)
    return out.sum()
