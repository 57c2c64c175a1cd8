# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A buffer class's method walked on its own stands for the calls of it the package makes from
# elsewhere, on the stream current there. A holder whose only call of the method is the one that
# left its work pending (the download it starts on its copy stream, with no count) makes no such
# call: its next call is walked with it, on the copy stream. vLLM's adaptive verification
# manager downloads into its two CpuGpuBuffer slots this way. The racy holder also calls the
# method itself, with a count, on the current stream, while its download may still write.
# RUN: %check_streamrace %s %t
import torch


class HostDeviceBuffer:
    def __init__(self, size):
        self.host = torch.zeros(size, pin_memory=True)
        self.device = torch.zeros(size, device="cuda")

    def download(self, count=None):
        if count is None:
            return self.host.copy_(self.device, non_blocking=True)
        return self.host[:count].copy_(self.device[:count], non_blocking=True)
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'self.host[*]' is written by copy_ on the current stream while copy_ on stream 'self.side_stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'publish' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-3]]:20: note: copy_ writes 'self.ranked[0].host' on stream 'self.side_stream' here
        # CHECK-MESSAGES: :[[@LINE+35]]:13: note: 'download' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:16: note: make the current stream wait for stream 'self.side_stream' before this: `torch.cuda.current_stream().wait_stream(self.side_stream)`


class ScoreKeeper:
    def __init__(self, slots):
        self.copy_stream = torch.cuda.Stream()
        self.slots = slots
        self.copied = [torch.cuda.Event() for _ in range(2)]
        self.index = 0

    def publish(self, scores):
        ready = self.index ^ 1
        self.copied[ready].synchronize()
        self.index, write = ready, self.index
        slot = self.slots[write]
        slot.device.copy_(scores)
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            slot.download()
            self.copied[write].record()


class PeekingScoreKeeper:
    def __init__(self, ranked):
        self.side_stream = torch.cuda.Stream()
        self.ranked = ranked
        self.done = [torch.cuda.Event() for _ in range(2)]
        self.turn = 0

    def publish(self, scores):
        slot = self.ranked[self.turn]
        slot.device.copy_(scores)
        self.side_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side_stream):
            slot.download()
            self.done[self.turn].record()

    def peek(self, count):
        self.ranked[self.turn].download(count)
