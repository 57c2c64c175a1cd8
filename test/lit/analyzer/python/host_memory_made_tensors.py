# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A helper that makes host memory a tensor (`torch.frombuffer` over a pool's block,
# `torch.from_numpy`) and copies a device tensor into it is followed from its callers: the copy
# without `non_blocking` is done when it returns, so the caller may drop a tensor it received on
# its own stream right after (vLLM's NCCL engine keeps received tensors in a pinned pool so).
# Not followed, the helper was a call reading the tensor on the current stream for all the
# check knew. The racy receiver also scales the tensor on the current stream after storing it,
# then drops it; its twin only stores it.
# RUN: %check_streamrace %s %t
import ctypes

import numpy as np
import torch


class HostPool:
    def __init__(self, size):
        self.block = (ctypes.c_byte * size)()
        self.array = np.zeros(size, dtype=np.float32)

    def store(self, tensor):
        host = torch.frombuffer(self.block, dtype=tensor.dtype, count=tensor.numel())
        host.copy_(tensor)
        return ctypes.addressof(self.block)

    def store_array(self, tensor):
        host = torch.from_numpy(self.array[: tensor.numel()])
        host.copy_(tensor)


class ReceiverScaling:
    def __init__(self, size, device):
        self.recv_stream = torch.cuda.Stream()
        self.pool = HostPool(size)
        self.device = device

    def receive(self, shape):
        with torch.cuda.stream(self.recv_stream):
            tensor = torch.ones(shape, device=self.device)
        self.recv_stream.synchronize()
        address = self.pool.store(tensor)
        tensor.mul_(2.0)
        tensor = None
        # CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'tensor' is dropped here while mul_ reads and writes 'tensor' on the current stream may still use it; the caching allocator can give its block to new work on stream 'self.recv_stream' at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: mul_ reads and writes 'tensor' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-7]]:22: note: 'tensor' is made here, on stream 'self.recv_stream'
        # CHECK-MESSAGES: :[[@LINE-4]]:18: note: tell the allocator about that use before this: `tensor.record_stream(torch.cuda.current_stream())`
        return address


class Receiver:
    def __init__(self, size, device):
        self.recv_stream = torch.cuda.Stream()
        self.pool = HostPool(size)
        self.device = device

    def receive(self, shape):
        with torch.cuda.stream(self.recv_stream):
            tensor = torch.ones(shape, device=self.device)
        self.recv_stream.synchronize()
        address = self.pool.store(tensor)
        tensor = None
        return address

    def receive_array(self, shape):
        with torch.cuda.stream(self.recv_stream):
            tensor = torch.ones(shape, device=self.device)
        self.recv_stream.synchronize()
        self.pool.store_array(tensor)
        tensor = None
