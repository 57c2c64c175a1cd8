# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# FSDP-style prefetch: layer parameters are all-gathered into one reusable buffer on a
# communication stream; the compute stream waits for the gather and uses the parameters, but the
# next layer's gather overwrites the buffer without waiting for that compute. `--fixed`: the
# communication stream waits for the compute stream before reusing the buffer.
import sys

import torch
import torch.distributed as dist

from _distributed import finish, start

rank, world = start()
shards = [torch.randn(64 * 64 // world, device="cuda") for _ in range(2)]
gathered = torch.empty(64 * 64, device="cuda")  # reused by every layer
activations = torch.randn(8, 64, device="cuda")
compute = torch.cuda.current_stream()
comm_stream = torch.cuda.Stream()
comm_stream.wait_stream(compute)
for layer, shard in enumerate(shards):
    if layer > 0 and "--fixed" in sys.argv:
        comm_stream.wait_stream(compute)  # the previous layer is done with the buffer
    with torch.cuda.stream(comm_stream):
        dist.all_gather_into_tensor(gathered, shard)
    compute.wait_stream(comm_stream)
    activations = activations @ gathered.view(64, 64)  # the layer reads its parameters
finish()
print("rank", rank, "forward done")
