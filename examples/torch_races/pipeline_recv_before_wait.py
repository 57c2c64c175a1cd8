# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Pipeline parallelism over 2 stages x 2 data-parallel replicas (4 ranks): each first stage sends
# its activations to its second stage with batch_isend_irecv (ProcessGroupNCCL coalesces the
# pair into one NCCL group on its own stream), and the second stage starts computing on the
# received buffer before the receive's work has been waited for. The replicas then sum their
# gradients over a data-parallel subgroup in one coalesced block, and scale the sum before the
# block's work has been waited for. `--fixed`: wait for the receive, and for the block.
import sys

import torch
import torch.distributed as dist

from _distributed import finish, start

rank, world = start()
fixed = "--fixed" in sys.argv
assert world == 4, "run with 4 ranks: 2 pipeline stages x 2 replicas"
stage, replica = rank % 2, rank // 2
data_parallel = [dist.new_group([0, 2]), dist.new_group([1, 3])][stage]

activations = torch.empty(2048, device="cuda")
weight = torch.randn(2048, device="cuda")
if stage == 0:
    activations.normal_()
    work = dist.batch_isend_irecv([dist.P2POp(dist.isend, activations, rank + 1)])
    for request in work:
        request.wait()
    grad = activations * weight
else:
    work = dist.batch_isend_irecv([dist.P2POp(dist.irecv, activations, rank - 1)])
    if fixed:
        for request in work:
            request.wait()
    grad = activations * weight  # the second stage reads the received activations
bias_grad = grad[:16].clone()
with dist._coalescing_manager(group=data_parallel, async_ops=True) as coalesced:
    dist.all_reduce(grad, group=data_parallel)
    dist.all_reduce(bias_grad, group=data_parallel)
if fixed:
    coalesced.wait()
grad.mul_(0.5)  # the average of the two replicas' gradients
if not fixed:
    coalesced.wait()
finish()
print("rank", rank, "stage", stage, "grad", float(grad.sum()))
