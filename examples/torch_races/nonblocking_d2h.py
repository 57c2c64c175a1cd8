# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Logging a metric: the loss is copied to pinned host memory with non_blocking=True and read on
# the host straight away, before the copy is done: the host may read a stale value. `--fixed`:
# synchronize the stream (or an event recorded after the copy) before reading.
import sys

import torch

model = torch.nn.Linear(64, 1).cuda()
inputs = torch.randn(32, 64).cuda()
loss = model(inputs).square().mean()
host_loss = loss.detach().to("cpu", non_blocking=True)  # a pinned buffer, filled on the stream
if "--fixed" in sys.argv:
    torch.cuda.current_stream().synchronize()
logged = host_loss.clone()  # the host reads the pinned buffer
print("loss logged:", logged.shape)
