# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A prefetcher uploads batches through one pinned staging buffer with non_blocking=True and fills
# the buffer with the next batch on the host while the previous upload may still read it: the
# device can receive a mix of two batches. `--fixed`: wait for the upload (an event recorded
# after it) before refilling the buffer.
import sys

import torch

staging = torch.empty(4096).pin_memory()
device_batch = torch.empty(4096, device="cuda")
copy_stream = torch.cuda.Stream()
copy_stream.wait_stream(torch.cuda.current_stream())
uploaded = torch.cuda.Event()
for step in range(2):
    if step > 0 and "--fixed" in sys.argv:
        uploaded.synchronize()
    staging.fill_(float(step))  # the host writes the next batch into the staging buffer
    with torch.cuda.stream(copy_stream):
        device_batch.copy_(staging, non_blocking=True)  # the upload reads it on the device
        uploaded.record()
torch.cuda.synchronize()
print("uploaded", step + 1, "batches")
