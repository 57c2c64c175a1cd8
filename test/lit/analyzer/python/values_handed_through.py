# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# `typing.cast(T, value)` hands back its value: a batch moved to the device on a side stream and
# returned through a cast is still what the copy writes. An attribute this call filled, then gave
# to a call the check cannot see into (`self.batch = self.transform(self.batch)`), holds that
# object or one made of it, not what another call left there. Each racy class has a twin.
# RUN: %check_streamrace %s %t
import typing
from typing import cast

import torch


def to_device(batch, device):
    return cast(torch.Tensor, batch.to(device, non_blocking=True))


def to_device_typed(batch, device):
    return typing.cast(torch.Tensor, batch.to(device, non_blocking=True))


def upload(batch, device):
    return cast(torch.Tensor, batch.to(device, non_blocking=True))


class CopyStreamStep:
    def __init__(self, device):
        self.device = device
        self.copy_stream = torch.cuda.Stream()

    def step(self, model, batch):
        with torch.cuda.stream(self.copy_stream):
            batch = to_device(batch, self.device)
        return model(batch)
        # CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'batch' is read by model on the current stream while batch.to on stream 'self.copy_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-21]]:31: note: batch.to writes 'to_device()' on stream 'self.copy_stream' here
        # CHECK-MESSAGES: :[[@LINE-4]]:21: note: 'to_device' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:22: note: make the current stream wait for stream 'self.copy_stream' before this: `torch.cuda.current_stream().wait_stream(self.copy_stream)`


class CopyStreamStepWaited:
    def __init__(self, device):
        self.device = device
        self.upload_stream = torch.cuda.Stream()

    def step(self, model, batch):
        with torch.cuda.stream(self.upload_stream):
            batch = to_device_typed(batch, self.device)
        torch.cuda.current_stream().wait_stream(self.upload_stream)
        return model(batch)


class TransformsItsOwnBatch:
    def __init__(self, device, transform):
        self.device = device
        self.transform = transform
        self.prefetch_stream = torch.cuda.Stream()
        self.batch = None

    def prefetch(self, batch):
        with torch.cuda.stream(self.prefetch_stream):
            self.batch = to_device_typed(batch, self.device)

    def step(self, model, batch):
        self.batch = batch.to(self.device, non_blocking=True)
        self.batch = self.transform(self.batch)
        return model(self.batch.float())


class TransformsThePrefetchedBatch:
    def __init__(self, device, transform):
        self.device = device
        self.transform = transform
        self.prefetch_stream = torch.cuda.Stream()
        self.batch = None

    def prefetch(self, batch):
        with torch.cuda.stream(self.prefetch_stream):
            self.batch = upload(batch, self.device)

    def step(self, model):
        self.batch = self.transform(self.batch)
        # CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'self.batch' is read by transform on the current stream while batch.to on stream 'self.prefetch_stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'prefetch' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-61]]:31: note: batch.to writes 'upload()' on stream 'self.prefetch_stream' here
        # CHECK-MESSAGES: :[[@LINE-6]]:26: note: 'upload' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:37: note: make the current stream wait for stream 'self.prefetch_stream' before this: `torch.cuda.current_stream().wait_stream(self.prefetch_stream)`
        return model(self.batch.float())
