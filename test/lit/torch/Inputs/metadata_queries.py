# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A side stream copies into pinned host memory without blocking; the host asks the buffer's
# metadata (is_pinned, size, stride: no bytes read) before synchronizing, then reads it after.
# `--racy` also sums it on the host before synchronizing: that read races with the copy.
import sys

import torch

device = torch.arange(1024.0, device="cuda")
host = torch.empty(1024, pin_memory=True)
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    host.copy_(device, non_blocking=True)
queries = (host.is_pinned(), host.size(0), host.stride(0), host.numel())
if "--racy" in sys.argv:
    early = host.sum()
side.synchronize()
print("metadata:", queries, "first element:", host[0].item())
