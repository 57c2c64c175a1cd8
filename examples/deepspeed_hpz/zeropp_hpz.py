# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A small model trained by DeepSpeed ZeRO stage 3 with ZeRO++ hierarchical partitioning (hpZ):
each rank keeps, besides its primary shard of every parameter, a secondary shard over the GPUs
of its node, and the backward all-gathers rebuild parameters from those inside the node.

Run it on 2 nodes x 2 GPUs (hpZ's partition size is the GPUs per node):

    streamrace run --launcher="streamrace-emu-launch --nodes 2 --gpus-per-node 2" -- \\
        python zeropp_hpz.py [--buggy] [--quantized] [--steps N]

`--buggy` runs DeepSpeed without the fix of its issue #5059 (PR #5216). The secondary shard is
filled by a copy on the compute stream when a layer's parameters are released after its
forward; ZeRO's prefetch may launch the backward all-gather of that shard on its all-gather
stream before the copy has run. PR #5216 made the host wait for the compute stream right after
the copy. DeepSpeed releases before the fix (0.13.x) do not run with the PyTorch this project
tests with, so `--buggy` takes the installed release and removes exactly that wait, in a copy
of the package (`without_pr5216.py`, which the demo's static check reads too); the installed
package is not touched.

`--quantized` turns on qwZ (quantized weights) and qgZ (quantized gradients) as well; both
need DeepSpeed's quantizer op, which PyTorch's extension loader compiles with nvcc on first use
(into TORCH_EXTENSIONS_DIR). Build it before tracing, as DeepSpeed users prebuild their ops:

    python -c "from deepspeed.ops.op_builder import QuantizerBuilder; QuantizerBuilder().load()"
"""
import argparse
import importlib.util
import os
import sys
import time

import without_pr5216

def _config(quantized):
    return {
        "train_micro_batch_size_per_gpu": 2,
        # PyTorch's own Adam: no compiled DeepSpeed op.
        "optimizer": {"type": "Adam", "params": {"lr": 1e-3, "torch_adam": True}},
        "zero_optimization": {
            "stage": 3,
            "zero_hpz_partition_size": int(os.environ.get("LOCAL_WORLD_SIZE", "2")),
            "zero_quantized_weights": quantized,
            "zero_quantized_gradients": quantized,
            # Every parameter is partitioned (none kept whole on every rank), released after
            # each use, and gathered one layer ahead of its next: the model is tiny, and by
            # default ZeRO would keep all of it gathered from forward to backward.
            "stage3_param_persistence_threshold": 0,
            "stage3_max_reuse_distance": 0,
            "stage3_max_live_parameters": 0,
            "stage3_prefetch_bucket_size": 4096,
        },
        "steps_per_print": 1 << 30,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--buggy", action="store_true",
                        help="DeepSpeed without PR #5216's synchronization")
    parser.add_argument("--quantized", action="store_true", help="qwZ and qgZ on")
    parser.add_argument("--steps", type=int, default=8)
    arguments = parser.parse_args()
    if importlib.util.find_spec("deepspeed") is None:
        sys.exit("zeropp_hpz.py: DeepSpeed is not installed (scripts/ensure-torch.sh installs it)")
    if arguments.buggy:
        sys.path.insert(0, without_pr5216.copy_without_pr5216())

    import torch
    import deepspeed

    torch.manual_seed(0)
    deepspeed.init_distributed(dist_backend="nccl")
    rank = torch.distributed.get_rank()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    width = 64
    model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(4)])
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                      config=_config(arguments.quantized))
    inputs = torch.randn(2, width, device="cuda")
    targets = torch.randn(2, width, device="cuda")
    for step in range(arguments.steps):
        torch.cuda.synchronize()
        started = time.perf_counter()
        loss = torch.nn.functional.mse_loss(engine(inputs), targets)
        engine.backward(loss)
        engine.step()
        torch.cuda.synchronize()
        if rank == 0:
            print(f"step {step}: {1000 * (time.perf_counter() - started):.1f} ms", flush=True)
    torch.distributed.barrier()
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
