# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A tensor read on a side stream and then dropped on the main stream, without record_stream: the
# caching allocator takes its block back on the main stream and hands it out again at once,
# while the side stream's read may still be running (`--fixed`: record_stream, as PyTorch's
# documentation asks).
import sys

import torch

main = torch.cuda.current_stream()
side = torch.cuda.Stream()
x = torch.ones(1024, device="cuda")
side.wait_stream(main)
with torch.cuda.stream(side):
    y = x * 2  # the side stream reads x
if "--fixed" in sys.argv:
    x.record_stream(side)
del x  # x's block goes back to the cache
z = torch.zeros(1024, device="cuda")  # and is handed out again
torch.cuda.synchronize()
print("block reused:", z.shape[0])
