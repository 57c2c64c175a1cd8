# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Data-parallel gradients: an asynchronous all_reduce of a gradient runs on the process group's
# own NCCL stream, and the optimizer's update consumes the gradient before work.wait(), so it
# may read the gradient half reduced. `--fixed`: wait for the work before the update.
import sys

import torch
import torch.distributed as dist

from _distributed import finish, start

rank, world = start()
weight = torch.randn(1024, device="cuda")
grad = torch.randn(1024, device="cuda")
work = dist.all_reduce(grad, async_op=True)
if "--fixed" in sys.argv:
    work.wait()
weight.sub_(grad, alpha=0.01 / world)  # the update reads the reduced gradient
finish()
print("rank", rank, "updated")
