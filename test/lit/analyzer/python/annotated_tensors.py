# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A name annotated as a tensor holds one (a parameter `x: torch.Tensor`, `Optional[Tensor]` from
# `from torch import Tensor`, `x: Tensor | None`, a class's field `buf: torch.Tensor`), so
# operators on it are tensor operators: what a side stream computes from it is written there.
# A dict annotated as holding tensors is no tensor: storing into it writes no bytes. Each racy
# function has a twin that orders the streams.
# RUN: %check_streamrace %s %t
from dataclasses import dataclass
from typing import Dict, Optional

import torch
from torch import Tensor


def doubled_on_a_side_stream(x: torch.Tensor):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        doubled = x * 2
    doubled.record_stream(torch.cuda.current_stream())
    return doubled + 1
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'doubled' is read by + on the current stream while * on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-4]]:19: note: * writes 'doubled' on stream 'side' here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the current stream wait for stream 'side' before this: `torch.cuda.current_stream().wait_stream(side)`


def doubled_and_waited_for(x: torch.Tensor):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        doubled = x * 2
    torch.cuda.current_stream().wait_stream(side)
    doubled.record_stream(torch.cuda.current_stream())
    return doubled + 1


def optional_operand(x: Optional[Tensor], y: Tensor | None):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        total = x + y
    total.record_stream(torch.cuda.current_stream())
    return total.sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'total' is read by sum on the current stream while + on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-4]]:17: note: + writes 'total' on stream 'side' here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the current stream wait for stream 'side' before this: `torch.cuda.current_stream().wait_stream(side)`


def unannotated_operands_stay_unknown(x, y):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        total = x + y
    return total


@dataclass
class Scaled:
    weight: torch.Tensor

    def __post_init__(self):
        self.stream = torch.cuda.Stream()

    def scaled(self):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            out = self.weight * 2
        out.record_stream(torch.cuda.current_stream())
        return out - 1
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'out' is read by - on the current stream while * on stream 'self.stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-4]]:19: note: * writes 'out' on stream 'self.stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'self.stream' before this: `torch.cuda.current_stream().wait_stream(self.stream)`

    def scaled_and_waited_for(self):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            out = self.weight * 2
        torch.cuda.current_stream().wait_stream(self.stream)
        out.record_stream(torch.cuda.current_stream())
        return out - 1


class Restorer:
    def __init__(self):
        self.copy_stream = torch.cuda.Stream()
        self.restored: Dict[int, torch.Tensor] = {}

    def restore(self, key, host: torch.Tensor):
        with torch.cuda.stream(self.copy_stream):
            device = host.to("cuda", non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        device.record_stream(torch.cuda.current_stream())
        self.restored[key] = device
        return device
