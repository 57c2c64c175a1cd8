# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# `typing.cast(T, value)` and `torch.jit.annotate(T, value)` only tell the type checker what the
# value is: the call gives the value back. A helper that returns a non-blocking copy through a
# cast hands out that copy, still being written on the stream current where the helper ran.
# RUN: %check_streamrace %s %t
from typing import cast

import torch
import typing


def to_device(batch, device):
    return cast(torch.Tensor, batch.to(device=device, non_blocking=True))


def to_device_annotated(batch, device):
    return torch.jit.annotate(torch.Tensor, batch.to(device, non_blocking=True))


class CopyPipeline:
    def __init__(self, model, device):
        self.model = model
        self.device = device
        self.copy_stream = torch.cuda.Stream()

    def step_racy(self, batch):
        with torch.cuda.stream(self.copy_stream):
            on_device = to_device(batch, self.device)
        return self.model(on_device)
        # CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'on_device' is read by model on the current stream while batch.to on stream 'self.copy_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-18]]:31: note: batch.to writes 'to_device()' on stream 'self.copy_stream' here
        # CHECK-MESSAGES: :[[@LINE-4]]:25: note: 'to_device' is called here

    def step_waits(self, batch):
        with torch.cuda.stream(self.copy_stream):
            on_device = to_device(batch, self.device)
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        on_device.record_stream(torch.cuda.current_stream())
        return self.model(on_device)

    def annotated_racy(self, batch):
        with torch.cuda.stream(self.copy_stream):
            on_device = to_device_annotated(batch, self.device)
        return self.model(on_device)
        # CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'on_device' is read by model on the current stream while batch.to on stream 'self.copy_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-29]]:45: note: batch.to writes 'to_device_annotated()' on stream 'self.copy_stream' here

    def spelled_with_its_module_racy(self, batch):
        with torch.cuda.stream(self.copy_stream):
            on_device = typing.cast(torch.Tensor, batch.to(self.device, non_blocking=True))
        return self.model(on_device)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'on_device' is dropped when 'spelled_with_its_module_racy' returns while model reads 'on_device' on the current stream may still use it; the caching allocator can give its block to new work on stream 'self.copy_stream' at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-2]]:27: note: model reads 'on_device' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-4]]:51: note: 'on_device' is made here, on stream 'self.copy_stream'
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: tell the allocator about that use before it returns: `on_device.record_stream(torch.cuda.current_stream())`
        # CHECK-MESSAGES: :[[@LINE-5]]:27: warning: 'on_device' is read by model on the current stream while batch.to on stream 'self.copy_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-7]]:51: note: batch.to writes 'on_device' on stream 'self.copy_stream' here

    def spelled_with_its_module_waits(self, batch):
        with torch.cuda.stream(self.copy_stream):
            on_device = typing.cast(torch.Tensor, batch.to(self.device, non_blocking=True))
        self.copy_stream.synchronize()
        on_device.record_stream(torch.cuda.current_stream())
        return self.model(on_device)
