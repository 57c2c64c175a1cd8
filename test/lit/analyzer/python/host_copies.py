# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Copies between the device and pinned host memory: `non_blocking=True` makes the host go on
# before the copy ran, so the host must not read the destination (nor overwrite the source of an
# upload) until it waited for the stream. Blocking copies (`.cpu()`, `.item()`, `.tolist()`)
# make the host wait by themselves. Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
import torch


def read_before_the_download_lands(logits):
    host = logits.to("cpu", non_blocking=True)
    return host.numpy().tolist()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: the host reads 'host' (tolist) while logits.to on the current stream may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: logits.to writes 'host' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
    # CHECK-FIXES: torch.cuda.current_stream().synchronize()
    # CHECK-FIXES-NEXT: return host.numpy().tolist()


def read_after_synchronizing(logits):
    host = logits.to("cpu", non_blocking=True)
    torch.cuda.current_stream().synchronize()
    return host.numpy().tolist()


def array_read_before_the_download_lands(logits):
    # `.numpy()` reads nothing: the array is the tensor's memory, read where it is used.
    array = logits.to("cpu", non_blocking=True).numpy()
    total = array.sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the host reads 'array' (sum) while logits.to on the current stream may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    torch.cuda.current_stream().synchronize()
    return total


def array_made_before_synchronizing(logits):
    array = logits.to("cpu", non_blocking=True).numpy()
    torch.cuda.current_stream().synchronize()
    return array.sum()


def blocking_copies_need_no_wait(logits):
    host = logits.cpu()
    total = logits.sum().item()
    return host.numpy(), total


def pinned_staging_buffer_refilled_too_early(indices):
    staging = torch.empty(1024, dtype=torch.int64, pin_memory=True)
    staging.copy_(indices)
    device = torch.empty(1024, dtype=torch.int64, device="cuda")
    device.copy_(staging, non_blocking=True)
    staging.zero_()
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the host writes 'staging' (zero_) while copy_ on the current stream may still be reading it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-3]]:18: note: copy_ reads 'staging' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
    return device


def pinned_staging_buffer_refilled_after_the_upload(indices):
    staging = torch.empty(1024, dtype=torch.int64, pin_memory=True)
    staging.copy_(indices)
    device = torch.empty(1024, dtype=torch.int64, device="cuda")
    device.copy_(staging, non_blocking=True)
    torch.cuda.current_stream().synchronize()
    staging.zero_()
    return device


# A copy left pending by one call and read on the host by another: only a non-blocking copy can
# still be moving host memory; a blocking one into host memory made the host wait for it, and
# one between device tensors touches no host memory.
class ShardsWrittenBackWithoutWaiting:
    def __init__(self, params):
        self.params = params
        self.stream = torch.cuda.Stream()

    def write_back(self, full_tensors):
        torch.cuda.current_stream().wait_stream(self.stream)
        for p, full in zip(self.params, full_tensors):
            p._shard.copy_(full, non_blocking=True)

    def pin(self, p):
        p._pinned = p._shard.pin_memory()
        # CHECK-MESSAGES: :[[@LINE-1]]:21: warning: the host reads 'p._shard' (pin_memory) while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream (the copy is left pending when 'write_back' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-5]]:13: note: copy_ writes 'self.params[*]._shard' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:21: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
        with torch.cuda.stream(self.stream):
            p._padded = torch.zeros_like(p._pinned, device="cuda")


class ShardsWrittenBackBlocking:
    def __init__(self, params):
        self.params = params
        self.stream = torch.cuda.Stream()

    def write_back(self, full_tensors):
        torch.cuda.current_stream().wait_stream(self.stream)
        for p, full in zip(self.params, full_tensors):
            p._master.copy_(full)

    def pin(self, p):
        p._pinned_master = p._master.pin_memory()
        with torch.cuda.stream(self.stream):
            p._padded_master = torch.zeros_like(p._pinned_master, device="cuda")


# A host tensor converted to another dtype stays on the host, converted when `to` returns: a
# schedule built on the host and pinned for its upload. A host tensor given a device is a copy
# the stream makes: pinning the result reads it before it is made.
def host_schedule_converted(lengths, device):
    counts = torch.tensor(lengths)
    offsets = (torch.arange(8, dtype=torch.int64) - counts).to(torch.int32)
    widths = offsets.to(counts.dtype, copy=True)
    return offsets.pin_memory().to(device, non_blocking=True), widths.pin_memory()


def host_schedule_sent_and_pinned(lengths):
    counts = torch.tensor(lengths)
    offsets = (torch.arange(8, dtype=torch.int64) - counts).to("cuda", non_blocking=True)
    back = offsets.to("cpu", non_blocking=True)
    return back.pin_memory()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: the host reads 'back' (pin_memory) while offsets.to on the current stream may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: offsets.to writes 'back' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`


# A tensor a function is given and asserts is in host memory, and what the host computes from it
# (a negation, a floor division, a torch function of host tensors only), stay on the host: a
# schedule converted and pinned for its upload. Computed from a download still landing, the
# schedule reads it too early.
def host_schedule_from_a_given_tensor(query_start_loc_cpu, block, device):
    assert query_start_loc_cpu.device.type == "cpu"
    counts = (-(-query_start_loc_cpu.diff() // block)).to(torch.int64)
    starts = torch.repeat_interleave(counts.cumsum(0) - counts, counts)
    offsets = (torch.arange(8, dtype=torch.int64) - starts).to(torch.int32)
    return offsets.pin_memory().to(device, non_blocking=True)


def host_schedule_from_a_download(query_start_loc, block, device):
    query_start_loc_cpu = query_start_loc.to("cpu", non_blocking=True)
    counts = (-(-query_start_loc_cpu.diff() // block)).to(torch.int64)
    # CHECK-MESSAGES: :[[@LINE-1]]:18: warning: the host reads 'query_start_loc_cpu' (diff) while query_start_loc.to on the current stream may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-3]]:27: note: query_start_loc.to writes 'query_start_loc_cpu' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:18: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
    starts = torch.repeat_interleave(counts.cumsum(0) - counts, counts)
    offsets = (torch.arange(8, dtype=torch.int64) - starts).to(torch.int32)
    return offsets.pin_memory().to(device, non_blocking=True)


# An operator whose result's size depends on its input's values (`nonzero`, `masked_select`,
# `unique`) makes the host wait for the current stream to learn that size, on a tensor known to
# be on the device: a download before it has landed by the time the host reads it after, not
# before. A tensor of unknown place may be on the host already, where nothing waits.
def downloaded_then_read_after_nonzero(logits):
    host = logits.to("cpu", non_blocking=True)
    kept = torch.softmax(logits, 0).nonzero()
    return host.tolist(), kept


def downloaded_then_read_after_unique(logits):
    host = logits.to("cpu", non_blocking=True)
    kept = torch.unique(torch.argmax(logits, 1))
    return host.tolist(), kept


def downloaded_then_read_before_nonzero_racy(logits):
    host = logits.to("cpu", non_blocking=True)
    values = host.tolist()
    # CHECK-MESSAGES: :[[@LINE-1]]:14: warning: the host reads 'host' (tolist) while logits.to on the current stream may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: logits.to writes 'host' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:14: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
    return values, torch.softmax(logits, 0).nonzero()


def downloaded_then_read_after_nonzero_of_a_mask_of_unknown_place_racy(logits, mask):
    host = logits.to("cpu", non_blocking=True)
    kept = torch.nonzero(mask)
    return host.tolist(), kept
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: the host reads 'host' (tolist) while logits.to on the current stream may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-4]]:12: note: logits.to writes 'host' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
