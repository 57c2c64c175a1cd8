# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import torch


def racy(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(x)
    return out.sum()


def ignored(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(x)
    return out.sum()  # streamrace: ignore[streamrace-unsynchronized-cross-stream]


def ignored_for_another_check(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(x)
    return out.sum()  # streamrace: ignore[streamrace-free-while-pending]
