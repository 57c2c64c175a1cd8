# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# An event a function returns hands its caller the wait for the work recorded before it: an
# upload from pinned staging that returns its done event leaves the wait to the code that
# refills the staging (it synchronizes the event first), so the upload is not judged across
# calls, also when the event is an attribute of an object reached through others (Megatron-LM's
# inference controller publishing its context's bookkeeping), or given to the object it returns
# (its sampler's download result). The same upload returning nothing leaves the refill of another
# call racing with it, and a download whose result carries no event leaves its reset racing.
# RUN: %check_streamrace %s %t
import torch


class Bookkeeping:
    def __init__(self, size):
        self.staging = torch.empty(size, dtype=torch.int32, pin_memory=True)
        self.device_buf = torch.empty(size, dtype=torch.int32, device="cuda")
        self.done = torch.cuda.Event()

    def publish(self):
        self.device_buf.copy_(self.staging, non_blocking=True)
        self.done.record(torch.cuda.current_stream())
        return self.done

    def refill(self, lengths):
        self.staging[: len(lengths)] = lengths


class Controller:
    def __init__(self, model):
        self.model = model

    def publish_context(self):
        context = self.model.context
        context.device_buf.copy_(context.staging, non_blocking=True)
        context.done_event.record(torch.cuda.current_stream())
        return context.done_event

    def refill_context(self, lengths):
        self.model.context.staging[: len(lengths)] = lengths


class BookkeepingRacy:
    def __init__(self, size):
        self.staging = torch.empty(size, dtype=torch.int32, pin_memory=True)
        self.device_buf = torch.empty(size, dtype=torch.int32, device="cuda")

    def publish(self):
        self.device_buf.copy_(self.staging, non_blocking=True)

    def refill(self, lengths):
        self.staging[: len(lengths)] = lengths
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: the host writes 'self.staging' (__setitem__) while copy_ on the current stream may still be reading it; nothing makes the host wait for that stream (the copy is left pending when 'publish' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-5]]:31: note: copy_ reads 'self.staging' on the current stream here


class DownloadResult:
    def __init__(self, counts, ready_event=None):
        self.counts = counts
        self.ready_event = ready_event


class Sampler:
    def __init__(self, size):
        self.counts_gpu = torch.zeros(size, device="cuda")
        self.counts_cpu = torch.empty(size, pin_memory=True)
        self.copy_stream = torch.cuda.Stream()
        self.ready = torch.cuda.Event()

    def download(self):
        ready = self.ready
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            self.counts_cpu.copy_(self.counts_gpu, non_blocking=True)
            ready.record(self.copy_stream)
        return DownloadResult(self.counts_cpu, ready_event=ready)

    def reset(self):
        self.counts_gpu.fill_(0)


class SamplerRacy:
    def __init__(self, size):
        self.counts_gpu = torch.zeros(size, device="cuda")
        self.counts_cpu = torch.empty(size, pin_memory=True)
        self.copy_stream = torch.cuda.Stream()

    def download(self):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            self.counts_cpu.copy_(self.counts_gpu, non_blocking=True)
        return DownloadResult(self.counts_cpu)

    def reset(self):
        self.counts_gpu.fill_(0)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'self.counts_gpu' is read and written by fill_ on the current stream while copy_ on stream 'self.copy_stream' may still be reading it; no event or synchronization orders the two streams (the earlier work is left pending when 'download' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-6]]:35: note: copy_ reads 'self.counts_gpu' on stream 'self.copy_stream' here
