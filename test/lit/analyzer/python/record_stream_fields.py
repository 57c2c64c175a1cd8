# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A class with a record_stream method tells the code that hands its objects to another stream to
# record that stream on the object, not on each tensor in it: a tensor made on the device and
# kept in a field the method leaves out (or in a closure kept in a field) goes back to the pool
# of the stream that made it when the object is dropped, while the receiving stream may still
# use it. Each racy store has a twin that the method covers, and the shapes the rule leaves
# alone stay silent.
# RUN: %check_streamrace %s %t
from typing import Optional

import torch


class Batch:
    """Filled on a loader's stream, then handed to the model's stream by record_stream."""

    def __init__(self, tokens, lengths):
        self.tokens = tokens
        self.lengths = lengths
        self.offsets = torch.cumsum(lengths, 0)
        self.weights = None
        self.mask = None
        self.scale = None
        self.positions = None
        self.cached_total = None

    def record_stream(self, stream):
        self.tokens.record_stream(stream)
        self.lengths.record_stream(stream)
        self.offsets.record_stream(stream)
        if self.weights is not None:
            self.weights.record_stream(stream)
        # CHECK-FIXES: {{^}}            self.weights.record_stream(stream){{$}}
        # CHECK-FIXES-NEXT: {{^}}        if self.mask is not None:{{$}}
        # CHECK-FIXES-NEXT: {{^}}            self.mask.record_stream(stream){{$}}

    def total(self):
        # A field a method of the object fills may be made after the hand-over, on the stream
        # that received it: not reported.
        self.cached_total = self.lengths.sum() + 0
        return self.cached_total


def fill_weights(batch: Batch):
    batch.weights = torch.ones_like(batch.lengths) * 2


def fill_mask_racy(batch: Batch):
    batch.mask = torch.ne(batch.tokens, 0)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'batch.mask' keeps a tensor made on the device that Batch.record_stream does not record; once the object, handed to another stream by record_stream, is dropped, the caching allocator can give the tensor's block to new work on the stream that made it while the other stream may still use it [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE-2]]:18: note: 'torch.ne(batch.tokens, 0)' is made here
    # CHECK-MESSAGES: :27:5: note: Batch.record_stream records the object's tensors here
    # CHECK-MESSAGES: :31:9: note: record it there: `self.mask.record_stream(stream)`


def fill_positions_on_the_host(batch: Batch, count):
    # Made without a device, on the host: no block of a stream's pool. So is what a legacy typed
    # constructor makes (TorchRec's `torch.IntTensor(stride_per_key_per_rank, device="cpu")`).
    batch.positions = torch.arange(count)
    batch.positions = torch.IntTensor([count, count])


def _make_scaler(lengths):
    counts = torch.clamp(lengths, min=1)
    divisor = counts + 1e-6

    def scale(values):
        return values / divisor

    return scale


def attach_scaler_racy(batch: Batch):
    batch.scale = _make_scaler(batch.lengths)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'batch.scale' keeps a closure over 'divisor', a tensor made on the device, that Batch.record_stream does not record; once the object, handed to another stream by record_stream, is dropped, the caching allocator can give the tensor's block to new work on the stream that made it while the other stream may still use it [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE-11]]:15: note: 'divisor' is made here
    # CHECK-MESSAGES: :[[@LINE-9]]:25: note: the closure reads 'divisor' here
    # CHECK-MESSAGES: :27:5: note: Batch.record_stream records the object's tensors here
    # CHECK-MESSAGES: :31:9: note: keep 'divisor' in a field of Batch and record it there: `self.divisor.record_stream(stream)`


class ScaledBatch:
    """The fixed form of the scaler: the divisor is a field, which record_stream records."""

    def __init__(self, lengths):
        self.lengths = lengths
        self.divisor: Optional[torch.Tensor] = None

    def record_stream(self, stream):
        self.lengths.record_stream(stream)
        if self.divisor is not None:
            self.divisor.record_stream(stream)


def _make_divisor(lengths):
    counts = torch.clamp(lengths, min=1)
    return counts + 1e-6


def attach_divisor(batch: ScaledBatch):
    batch.divisor = _make_divisor(batch.lengths)


class Features:
    """Its record_stream hands the whole object on: every field counts as recorded."""

    def __init__(self, values):
        self.values = values
        self.norms = torch.linalg.vector_norm(values, dim=1)

    def record_stream(self, stream):
        record_all_tensors(self, stream)


def record_all_tensors(holder, stream):
    for value in vars(holder).values():
        if isinstance(value, torch.Tensor):
            value.record_stream(stream)
