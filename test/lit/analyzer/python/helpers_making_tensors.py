# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A helper of the package that does no stream work is not followed; when every return of it
# gives a tensor it made (`_flatten_dense_tensors(grads)`), its result is a new tensor made on
# the stream current at the call, as a torch function's is: dropping it gives the block back to
# that stream's pool. A helper returning a buffer it keeps, `.to()` of one (which may be the
# buffer itself), or a host tensor hands back no new device tensor. Each racy function has its
# twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist
from torch._utils import _flatten_dense_tensors


class GradientBucket:
    def __init__(self):
        self.grads = {}
        self.kept = torch.zeros(1024, device="cuda")

    def flattened(self):
        flat = []
        for grads in self.grads.values():
            flat.extend(grads)
        flat = _flatten_dense_tensors(flat)
        return flat

    def kept_buffer(self):
        return self.kept

    def converted(self, dtype):
        return self.kept.to(dtype)

    def counts(self):
        return torch.tensor([len(grads) for grads in self.grads.values()])


class Reducer:
    def __init__(self):
        self.bucket = GradientBucket()
        self.comm = torch.cuda.Stream()

    def reduce_flattened_unrecorded_racy(self):
        flat = self.bucket.flattened()
        flat.div_(2)
        self.comm.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.comm):
            dist.all_reduce(flat)
        # CHECK-MESSAGES: :[[@LINE-2]]:9: warning: 'flat' is dropped when 'reduce_flattened_unrecorded_racy' returns while all_reduce reads and writes 'flat' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-2]]:29: note: all_reduce reads and writes 'flat' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-7]]:16: note: 'flat' is made here, on the current stream
        # CHECK-MESSAGES: :[[@LINE-4]]:29: note: tell the allocator about this use: `flat.record_stream(self.comm)`

    def reduce_flattened_recorded(self):
        flat = self.bucket.flattened()
        flat.div_(2)
        self.comm.wait_stream(torch.cuda.current_stream())
        flat.record_stream(self.comm)
        with torch.cuda.stream(self.comm):
            dist.all_reduce(flat)

    def reduce_kept_buffer(self):
        flat = self.bucket.kept_buffer()
        flat.div_(2)
        self.comm.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.comm):
            dist.all_reduce(flat)

    def reduce_converted_buffer(self):
        flat = self.bucket.converted(torch.float32)
        flat.div_(2)
        self.comm.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.comm):
            dist.all_reduce(flat)

    def reduce_host_counts(self):
        counts = self.bucket.counts()
        self.comm.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.comm):
            dist.all_reduce(counts)
