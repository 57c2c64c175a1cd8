# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A side stream produces a tensor that the current stream consumes with no wait_stream
# (`--fixed`: with it). The producer and the consumer are kernels whose arguments are structs
# passed by value: only the operators' stated ranges make them accesses.
import sys

import torch

x = torch.ones(1024, device="cuda")
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    y = x * 2  # the producer, on the side stream
if "--fixed" in sys.argv:
    torch.cuda.current_stream().wait_stream(side)
z = y + 1  # the consumer, on the current stream
torch.cuda.synchronize()
print("consumed", z.shape[0], "elements")
