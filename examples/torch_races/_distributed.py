# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the multi-rank scripts share: a NCCL process group over the ranks torchrun (or a
launcher that sets the same variables) started, one GPU per rank."""
import os

import torch
import torch.distributed as dist


def start():
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl")
    return dist.get_rank(), dist.get_world_size()


def finish():
    torch.cuda.synchronize()
    dist.barrier()
    dist.destroy_process_group()
