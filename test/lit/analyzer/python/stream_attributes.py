# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Streams reached through attributes: a cached property returning the current stream is the
# current stream, not a side stream kept under that name; an attribute every store of the
# package sets to the current stream is that stream through any object; and a stream one class
# makes is the same stream when another class reaches it through its object, so that a wait the
# first class makes counts for the second's use. Each racy class has a twin.
# RUN: %check_streamrace %s %t
import functools

import torch


class DownloadRunner:
    def __init__(self):
        self.sample_stream = torch.cuda.Stream()
        self.sampled = torch.zeros(64, device="cuda")

    @functools.cached_property
    def main_stream(self):
        return torch.cuda.current_stream()

    def step(self, logits):
        self.sampled.copy_(logits.argmax(dim=-1))
        self.sample_stream.wait_stream(self.main_stream)
        with torch.cuda.stream(self.sample_stream):
            sampled_cpu = self.sampled.to("cpu", non_blocking=True)
        self.sample_stream.synchronize()
        return sampled_cpu


class DownloadRunnerRacy:
    def __init__(self):
        self.d2h_stream = torch.cuda.Stream()
        self.tokens = torch.zeros(64, device="cuda")

    @functools.cached_property
    def compute_stream(self):
        return torch.cuda.current_stream()

    def step(self, logits):
        self.tokens.copy_(logits.argmax(dim=-1))
        self.compute_stream.wait_stream(self.d2h_stream)
        with torch.cuda.stream(self.d2h_stream):
            tokens_cpu = self.tokens.to("cpu", non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'self.tokens' is read by to on stream 'self.d2h_stream' while copy_ on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-5]]:9: note: copy_ writes 'self.tokens' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:26: note: make stream 'self.d2h_stream' wait for the current stream before entering it: `self.d2h_stream.wait_stream(torch.cuda.current_stream())`
        self.d2h_stream.synchronize()
        return tokens_cpu


# The broadcaster keeps the stream current when it was made; the trainer reaches it through a
# broadcaster attached in a method the analysis does not walk. Every store of the package under
# `main_stream` is the current stream; `issue_stream` holds the current stream in one class and a
# stream of its own in another, so nothing says which one the racy trainer waits for.
class Broadcaster:
    def __init__(self, group):
        self.group = group
        self.main_stream = torch.cuda.current_stream()
        self.issue_stream = torch.cuda.current_stream()
        self.broadcast_stream = torch.cuda.Stream()


class Prefetcher:
    def __init__(self):
        self.issue_stream = torch.cuda.Stream()


class Trainer:
    def attach(self, group):
        self.broadcaster = Broadcaster(group)

    def step(self, drafts):
        tokens = drafts.clone()
        side = self.broadcaster.broadcast_stream
        side.wait_stream(self.broadcaster.main_stream)
        with torch.cuda.stream(side):
            torch.distributed.broadcast(tokens, src=0, group=self.broadcaster.group)
        tokens.record_stream(side)


class TrainerRacy:
    def attach(self, group):
        self.broadcaster = Broadcaster(group)

    def step(self, drafts):
        tokens = drafts.clone()
        side = self.broadcaster.broadcast_stream
        side.wait_stream(self.broadcaster.issue_stream)
        with torch.cuda.stream(side):
            torch.distributed.broadcast(tokens, src=0, group=self.broadcaster.group)
            # CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'tokens' is read and written by broadcast on the process group's stream (group=self.broadcaster.group) while drafts.clone on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-6]]:18: note: drafts.clone writes 'tokens' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:41: note: make stream 'self.broadcaster.broadcast_stream' wait for the current stream before entering it: `self.broadcaster.broadcast_stream.wait_stream(torch.cuda.current_stream())`
        tokens.record_stream(side)


# A handler's stream, made by the handler and ordered after the current stream by it, used by a
# runner that reaches it through a handler attached in a method the analysis does not walk; the
# racy handler never orders its stream.
class DraftsHandler:
    def __init__(self):
        self.copy_stream = torch.cuda.Stream()

    def begin(self):
        self.copy_stream.wait_stream(torch.cuda.current_stream())


class DraftsRunner:
    def __init__(self):
        self.drafts = torch.zeros(8, 4, device="cuda")

    def attach(self):
        self.handler = DraftsHandler()

    def propose(self, proposals):
        self.drafts[:, :2] = proposals.to("cuda", non_blocking=True)

    def finish(self):
        with torch.cuda.stream(self.handler.copy_stream):
            drafts_cpu = self.drafts.to("cpu", non_blocking=True)
        self.handler.copy_stream.synchronize()
        return drafts_cpu


class UploadHandler:
    def __init__(self):
        self.upload_stream = torch.cuda.Stream()


class UploadRunnerRacy:
    def __init__(self):
        self.inputs = torch.zeros(8, 4, device="cuda")

    def attach(self):
        self.handler = UploadHandler()

    def fill(self, values):
        self.inputs[:, :2] = values.to("cuda", non_blocking=True)

    def finish(self):
        with torch.cuda.stream(self.handler.upload_stream):
            inputs_cpu = self.inputs.to("cpu", non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'self.inputs' is read by to on stream 'self.handler.upload_stream' while __setitem__ on the current stream may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'fill' returns) [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-6]]:9: note: __setitem__ writes 'self.inputs' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:26: note: make stream 'self.handler.upload_stream' wait for the current stream before entering it: `self.handler.upload_stream.wait_stream(torch.cuda.current_stream())`
        self.handler.upload_stream.synchronize()
        return inputs_cpu
