# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# An event meant to mark "activations ready" is recorded on the producer's stream before the
# producer is enqueued, so waiting on it orders nothing: the consumer races the producer.
# `--fixed`: record the event after the producer.
import sys

import torch

producer = torch.cuda.Stream()
ready = torch.cuda.Event()
weights = torch.randn(256, 256, device="cuda")
inputs = torch.randn(64, 256, device="cuda")
producer.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(producer):
    if "--fixed" not in sys.argv:
        ready.record()  # too early: before the work it is meant to mark
    activations = torch.relu(inputs @ weights)
    if "--fixed" in sys.argv:
        ready.record()
torch.cuda.current_stream().wait_event(ready)
logits = activations @ weights.t()
torch.cuda.synchronize()
print("logits", tuple(logits.shape))
