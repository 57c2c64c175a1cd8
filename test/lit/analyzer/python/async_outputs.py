# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Results downloaded in one call and read in another: a constructor starts non-blocking copies to
# the host on a copy stream and keeps the host tensors; a later call reads them on the host. The
# copy is left pending when the constructor returns, so the reader must make the host wait: for
# the stream, or for an event the constructor recorded after the copies (a host wait for an
# event another call recorded waits for what preceded its records there). The reading function
# needs no stream work of its own to be checked. Each racy class has an ordered twin.
# RUN: %check_streamrace %s %t
import torch


class AsyncOutputRacy:
    def __init__(self, sampled: torch.Tensor, copy_stream: torch.cuda.Stream):
        self.copy_event = torch.cuda.Event()
        with torch.cuda.stream(copy_stream):
            copy_stream.wait_stream(torch.cuda.current_stream())
            self.sampled = sampled.to("cpu", non_blocking=True)
            self.copy_event.record(copy_stream)

    def get_output(self):
        return self.sampled.tolist()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: the host reads 'self.sampled' (tolist) while sampled.to on stream 'copy_stream' may still be writing it; nothing makes the host wait for that stream (the copy is left pending when '__init__' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-6]]:28: note: sampled.to writes 'self.sampled' on stream 'copy_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the host wait for stream 'copy_stream' before this: `torch.cuda.synchronize()`


class AsyncOutput:
    def __init__(self, sampled: torch.Tensor, copy_stream: torch.cuda.Stream):
        self.copy_event = torch.cuda.Event()
        with torch.cuda.stream(copy_stream):
            copy_stream.wait_stream(torch.cuda.current_stream())
            self.sampled = sampled.to("cpu", non_blocking=True)
            self.copy_event.record(copy_stream)

    def get_output(self):
        self.copy_event.synchronize()
        return self.sampled.tolist()


class PrefetchedCountsRacy:
    def __init__(self, counts: torch.Tensor):
        self.download_stream = torch.cuda.Stream()
        self.download_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.download_stream):
            self.counts = counts.to("cpu", non_blocking=True).numpy()

    def total(self):
        return int(self.counts.sum())
        # CHECK-MESSAGES: :[[@LINE-1]]:20: warning: the host reads 'self.counts' (sum) while counts.to on stream 'self.download_stream' may still be writing it; nothing makes the host wait for that stream (the copy is left pending when '__init__' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-5]]:27: note: counts.to writes 'self.counts' on stream 'self.download_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:20: note: make the host wait for stream 'self.download_stream' before this: `self.download_stream.synchronize()`


class PrefetchedCounts:
    def __init__(self, counts: torch.Tensor):
        self.download_stream = torch.cuda.Stream()
        self.download_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.download_stream):
            self.counts = counts.to("cpu", non_blocking=True).numpy()

    def total(self):
        self.download_stream.synchronize()
        return int(self.counts.sum())


# A helper that returns what its return statement copied: the caller's object, the copy still
# pending on it.
def async_copy_to_np(x):
    return x.to("cpu", non_blocking=True).numpy()


class ThroughHelperRacy:
    def __init__(self, sampled: torch.Tensor):
        self.side = torch.cuda.Stream()
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            self.ids = async_copy_to_np(sampled)

    def get_output(self):
        return self.ids.tolist()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: the host reads 'self.ids' (tolist) while x.to on stream 'self.side' may still be writing it; nothing makes the host wait for that stream (the copy is left pending when '__init__' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-13]]:12: note: x.to writes 'async_copy_to_np()' on stream 'self.side' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the host wait for stream 'self.side' before this: `self.side.synchronize()`


class ThroughHelper:
    def __init__(self, sampled: torch.Tensor):
        self.side = torch.cuda.Stream()
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            self.ids = async_copy_to_np(sampled)

    def get_output(self):
        self.side.synchronize()
        return self.ids.tolist()


# Results handed to code outside the package before they land: read there at once, unless the
# function that hands them on records an event the package synchronizes somewhere (before the
# results are used), which says they are read later.
class HandedToAQueueRacy:
    def __init__(self, sampled: torch.Tensor, download_stream: torch.cuda.Stream, queue):
        with torch.cuda.stream(download_stream):
            queue.put(async_copy_to_np(sampled))
            # CHECK-MESSAGES: :[[@LINE-1]]:23: warning: the host reads 'async_copy_to_np()' (put) while x.to on stream 'download_stream' may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
            # CHECK-MESSAGES: :[[@LINE-37]]:12: note: x.to writes 'async_copy_to_np()' on stream 'download_stream' here
            # CHECK-MESSAGES: :[[@LINE-3]]:23: note: 'async_copy_to_np' is called here


class HandedToAQueue:
    def __init__(self, sampled: torch.Tensor, copy_stream: torch.cuda.Stream, queue):
        self.copy_event = torch.cuda.Event()
        with torch.cuda.stream(copy_stream):
            queue.put(async_copy_to_np(sampled))
            self.copy_event.record(copy_stream)

    def results_landed(self):
        self.copy_event.synchronize()


# A tensor a local names, then kept in an attribute: other calls know it by the attribute.
class BoundThenKeptRacy:
    def __init__(self, sampled: torch.Tensor):
        self.side = torch.cuda.Stream()
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            ids = sampled.to("cpu", non_blocking=True)
        self.ids = ids

    def get_output(self):
        return self.ids.tolist()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: the host reads 'self.ids' (tolist) while sampled.to on stream 'self.side' may still be writing it; nothing makes the host wait for that stream (the copy is left pending when '__init__' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-6]]:19: note: sampled.to writes 'ids' on stream 'self.side' here


class BoundThenKept:
    def __init__(self, sampled: torch.Tensor):
        self.side = torch.cuda.Stream()
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            ids = sampled.to("cpu", non_blocking=True)
        self.ids = ids

    def get_output(self):
        self.side.synchronize()
        return self.ids.tolist()


# The shape of vLLM PR #36013: a pinned buffer a step downloads into without waiting, read in the
# next step through a numpy view the constructor kept under another name. The fix records an
# event after the copy and synchronizes it before the read.
class AcceptedTokensRacy:
    def __init__(self):
        self.accepted = torch.zeros(8, dtype=torch.int64, device="cuda")
        self.accepted_cpu_tensor = torch.zeros(8, dtype=torch.int64, pin_memory=True)
        self.accepted_cpu = self.accepted_cpu_tensor.numpy()

    def update_states(self, sampled):
        self.accepted.copy_(sampled.sum(dim=1))
        self.accepted_cpu_tensor.copy_(self.accepted, non_blocking=True)

    def build_metadata(self, num_reqs):
        return self.accepted_cpu[:num_reqs].sum()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: the host reads 'self.accepted_cpu_tensor[*]' (sum) while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream (the copy is left pending when 'update_states' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-5]]:9: note: copy_ writes 'self.accepted_cpu_tensor' on the current stream here


class AcceptedTokens:
    def __init__(self):
        self.accepted = torch.zeros(8, dtype=torch.int64, device="cuda")
        self.accepted_cpu_tensor = torch.zeros(8, dtype=torch.int64, pin_memory=True)
        self.accepted_cpu = self.accepted_cpu_tensor.numpy()
        self.accepted_event = torch.cuda.Event()

    def update_states(self, sampled):
        self.accepted.copy_(sampled.sum(dim=1))
        self.accepted_cpu_tensor.copy_(self.accepted, non_blocking=True)
        self.accepted_event.record()

    def build_metadata(self, num_reqs):
        self.accepted_event.synchronize()
        return self.accepted_cpu[:num_reqs].sum()
