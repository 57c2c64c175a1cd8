# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A host tensor given to a non-blocking copy may be dropped at once: PyTorch's pinned-memory
# allocator records an event for the copy and reuses the block only once it has passed, and a
# copy from pageable memory is done with it when the call returns. Factories without a device
# make host tensors (the CPU is PyTorch's default device), and arithmetic on host tensors gives
# host tensors. A device tensor dropped while another stream copies it is still reported.
# RUN: %check_streamrace %s %t
import torch


class MaskUploader:
    def __init__(self, rows):
        self.indices = torch.zeros(rows, dtype=torch.int32, device="cuda")
        self.copy_stream = torch.cuda.Stream()

    def upload(self, mapping):
        with torch.cuda.stream(self.copy_stream):
            staged = torch.tensor(mapping, dtype=torch.int32, pin_memory=True)
            staged = self.indices[: len(mapping)].copy_(staged, non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        return staged


class SlotMapper:
    def __init__(self, block_size):
        self.block_size = block_size
        self.copy_stream = torch.cuda.Stream()

    def slot_mapping(self, block_ids, device):
        blocks = torch.tensor(block_ids, dtype=torch.long)
        offsets = torch.arange(0, self.block_size, dtype=torch.long)
        slots = offsets.reshape(1, -1) + blocks.reshape(-1, 1) * self.block_size
        slots = slots.flatten()
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            slots_on_device = slots.to(device, non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        slots_on_device.record_stream(torch.cuda.current_stream())
        return slots_on_device

    def slot_mapping_on_device_racy(self, block_ids, pinned_out):
        blocks = torch.tensor(block_ids, dtype=torch.long, device="cuda")
        offsets = torch.arange(0, self.block_size, dtype=torch.long, device="cuda")
        slots = offsets.reshape(1, -1) + blocks.reshape(-1, 1) * self.block_size
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'slots' is dropped when 'slot_mapping_on_device_racy' returns while copy_ reads 'slots' on stream 'self.copy_stream' may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
            # CHECK-MESSAGES: :[[@LINE+3]]:30: note: copy_ reads 'slots' on stream 'self.copy_stream' here
            # CHECK-MESSAGES: :[[@LINE-5]]:17: note: 'slots' is made here, on the current stream
            # CHECK-MESSAGES: :[[@LINE-4]]:9: note: tell the allocator about that use before it returns: `slots.record_stream(self.copy_stream)`
            pinned_out.copy_(slots, non_blocking=True)
