# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A buffer class many holders use. One holder's download into a slot of the list its caller
# gave it is met by the buffer's methods only where the package may call them on that holder's
# slots: the upload other holders call on their own buffers, and another class's `cpu`, are
# other objects, whether walked on their own or from the holder that calls them. The holder that
# uploads its own slot races with its download; a holder that refills its host buffer while its
# last upload may still read it races with that upload.
# RUN: %check_streamrace %s %t
import torch


class StagingBuffer:
    def __init__(self, *size, dtype, device):
        self.cpu = torch.zeros(*size, dtype=dtype, device="cpu", pin_memory=True)
        self.gpu = torch.zeros_like(self.cpu, device=device)

    def fetch_to_host(self):
        return self.cpu.copy_(self.gpu, non_blocking=True)

    def push_to_device(self, n=None):
        cpu, gpu = self.cpu, self.gpu
        if n is not None:
            cpu, gpu = cpu[:n], gpu[:n]
        return gpu.copy_(cpu, non_blocking=True)

    def push_all(self):
        return self.gpu.copy_(self.cpu, non_blocking=True)
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'self.gpu' is written by copy_ on the current stream while copy_ on stream 'self.copy_stream' may still be reading it; no event or synchronization orders the two streams (the earlier work is left pending when 'download' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-11]]:31: note: copy_ reads 'self.round_trip[index].gpu' on stream 'self.copy_stream' here
        # CHECK-MESSAGES: :[[@LINE+50]]:13: note: 'fetch_to_host' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:16: note: make the current stream wait for stream 'self.copy_stream' before this: `torch.cuda.current_stream().wait_stream(self.copy_stream)`
        # CHECK-MESSAGES: :[[@LINE-5]]:31: warning: 'self.cpu' is read by copy_ on the current stream while copy_ on stream 'self.copy_stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'download' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-15]]:16: note: copy_ writes 'self.round_trip[index].cpu' on stream 'self.copy_stream' here
        # CHECK-MESSAGES: :[[@LINE+46]]:13: note: 'fetch_to_host' is called here
        # CHECK-MESSAGES: :[[@LINE-8]]:31: note: make the current stream wait for stream 'self.copy_stream' before this: `torch.cuda.current_stream().wait_stream(self.copy_stream)`


class HostOnlyBuffer:
    def __init__(self, rows):
        self.cpu = torch.zeros(rows, pin_memory=True)

    def fill_host(self, value):
        self.cpu.fill_(value)


class SlotDownloader:
    def __init__(self, slots):
        self.copy_stream = torch.cuda.Stream()
        self.slots = slots

    def download(self, index):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            self.slots[index].fetch_to_host()


class Uploader:
    def __init__(self, device):
        self.upload_stream = torch.cuda.current_stream()
        self.staging = StagingBuffer(8, dtype=torch.int32, device=device)
        self.host_only = HostOnlyBuffer(8)

    def step(self, n):
        self.host_only.fill_host(0)
        self.staging.cpu[:n].fill_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: the host writes 'self.staging.cpu[*]' (fill_) while copy_ on the current stream may still be reading it; nothing makes the host wait for that stream (the copy is left pending when 'push_to_device' returns) [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-43]]:26: note: copy_ reads 'self.cpu' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
        return self.staging.push_to_device(n)


class SlotRoundTrip:
    def __init__(self, slots):
        self.copy_stream = torch.cuda.Stream()
        self.round_trip = slots

    def download(self, index):
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            self.round_trip[index].fetch_to_host()

    def send_back(self, index):
        self.round_trip[index].push_all()



# Without a holder that uploads the downloaded slots: the upload another holder's step makes of
# its own buffer meets no download, walked on its own or from that step.
class PinnedMirror:
    def __init__(self, *size, dtype, device):
        self.pinned = torch.zeros(*size, dtype=dtype, device="cpu", pin_memory=True)
        self.mirrored = torch.zeros_like(self.pinned, device=device)

    def read_back(self):
        return self.pinned.copy_(self.mirrored, non_blocking=True)

    def write_through(self, n=None):
        pinned, mirrored = self.pinned, self.mirrored
        if n is not None:
            pinned, mirrored = pinned[:n], mirrored[:n]
        return mirrored.copy_(pinned, non_blocking=True)


class MirrorReader:
    def __init__(self, mirrors):
        self.read_stream = torch.cuda.Stream()
        self.mirrors = mirrors

    def read(self, index):
        self.read_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.read_stream):
            self.mirrors[index].read_back()


class MirrorWriter:
    def __init__(self, device):
        self.write_stream = torch.cuda.current_stream()
        self.mirror = PinnedMirror(8, dtype=torch.int32, device=device)

    def step(self, n):
        self.write_stream.synchronize()
        self.mirror.pinned[:n].zero_()
        return self.mirror.write_through(n)
