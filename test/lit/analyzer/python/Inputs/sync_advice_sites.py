# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Host waits for sync_advice.test: one a stream's wait could replace, and twins whose wait the
# host needs or that order nothing the check sees.
import torch
import torch.distributed as dist


class HostSyncFix:
    """The hpZ race's host-sync fix: the release's copy, a host wait, and another method's
    all-gather on a side stream that only needs the copy done on the device."""

    def __init__(self):
        self.allgather_stream = torch.cuda.Stream()

    def release(self, param, shard):
        param.secondary.copy_(shard)
        torch.cuda.current_stream().synchronize()

    def fetch(self, param, group):
        with torch.cuda.stream(self.allgather_stream):
            full = param.secondary.new_empty(param.numel())
            dist.all_gather_into_tensor(full, param.secondary, group=group)
        torch.cuda.current_stream().wait_stream(self.allgather_stream)
        full.record_stream(torch.cuda.current_stream())
        return full


class PinnedDownload:
    """Twin: the host tensor a non-blocking copy fills is handed to the caller, who reads it on
    the host: the wait is the host's."""

    def __init__(self):
        self.side = torch.cuda.Stream()

    def download(self, grads):
        with torch.cuda.stream(self.side):
            host = grads.to("cpu", non_blocking=True)
        self.side.synchronize()
        return host


class HostReads:
    """Twin: the host reads the norm the side stream computes with `.item()`, which waits for
    the current stream anyway: a stream's wait in place of the synchronize saves nothing."""

    def __init__(self):
        self.norm_stream = torch.cuda.Stream()

    def total_norm(self, grads):
        self.norm_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.norm_stream):
            total = grads.norm()
        self.norm_stream.synchronize()
        return total.item()


class SameStream:
    """Twin: what the wait completes is read on the same stream afterwards; taken out, nothing
    new is found, which is not advice the check gives."""

    def scale(self, grads, factor):
        grads.mul_(factor)
        torch.cuda.synchronize()
        return grads.sum()
