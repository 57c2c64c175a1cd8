# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# ZeRO/DDP gradient buckets: the bucket of one group of gradients is reduce-scattered
# asynchronously, and the next group's gradients are copied into the same bucket while the
# reduce-scatter may still be reading it. `--fixed`: wait for the reduce-scatter before refilling.
import sys

import torch
import torch.distributed as dist

from _distributed import finish, start

rank, world = start()
bucket = torch.empty(1024 * world, device="cuda")
shard = torch.empty(1024, device="cuda")
layer_grads = [torch.randn(1024 * world, device="cuda") for _ in range(2)]
for grads in layer_grads:
    bucket.copy_(grads)  # fill the bucket with this group's gradients
    work = dist.reduce_scatter_tensor(shard, bucket, async_op=True)
    if "--fixed" in sys.argv:
        work.wait()
work.wait()
finish()
print("rank", rank, "reduced")
