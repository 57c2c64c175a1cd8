# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The ZeRO++ hpZ bug (DeepSpeed #5059, fixed by PR #5216), in torch.distributed: each rank copies
# its parameter shard into the secondary partition on a side stream, and the all-gather that
# rebuilds the full parameter from the secondary partitions runs on a communication stream
# that never waited for the copy. `--fixed`: the communication stream waits for the copy stream.
import sys

import torch
import torch.distributed as dist

from _distributed import finish, start

rank, world = start()
shard = torch.randn(4096, device="cuda")
secondary = torch.empty(4096, device="cuda")
full = torch.empty(4096 * world, device="cuda")
copy_stream = torch.cuda.Stream()
comm_stream = torch.cuda.Stream()
copy_stream.wait_stream(torch.cuda.current_stream())
comm_stream.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(copy_stream):
    secondary.copy_(shard)  # the secondary partition
if "--fixed" in sys.argv:
    comm_stream.wait_stream(copy_stream)
with torch.cuda.stream(comm_stream):
    dist.all_gather_into_tensor(full, secondary)  # reads every rank's secondary partition
finish()
print("rank", rank, "gathered")
