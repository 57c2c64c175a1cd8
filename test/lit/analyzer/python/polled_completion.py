# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Polling instead of waiting: where an event's or a stream's `query()` answered yes, the host has
# seen the work before the record, or the stream's work, done, as a synchronize would have
# waited for it (a guard that reads last step's download only once its event has passed), also
# where the poll's answer is kept in a flag first. The same reads without the poll race with the
# download.
# RUN: %check_streamrace %s %t
import torch


class FailureGuard:
    def __init__(self, failed):
        self.failed = failed
        self.host = torch.zeros(1, dtype=torch.int32, pin_memory=True)
        self.copied = None
        self.seen = False

    def after_step(self):
        if self.copied is None or self.copied.query():
            if self.copied is not None:
                self.seen |= bool(self.host[0])
            self.host.copy_(self.failed, non_blocking=True)
            self.copied = torch.cuda.Event()
            self.copied.record()


class EagerGuard:
    def __init__(self, failed):
        self.failed = failed
        self.host = torch.zeros(1, dtype=torch.int32, pin_memory=True)
        self.copied = None
        self.seen = False

    def after_step(self):
        if self.copied is not None:
            self.seen |= bool(self.host[0])
            # CHECK-MESSAGES: :[[@LINE-1]]:31: warning: the host reads 'self.host[0]' (bool) while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream (the copy is left pending when 'after_step' returns) [streamrace-host-access-before-sync]
            # CHECK-MESSAGES: :[[@LINE+2]]:9: note: copy_ writes 'self.host' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:31: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
        self.host.copy_(self.failed, non_blocking=True)
        self.copied = torch.cuda.Event()
        self.copied.record()


def poll_stream(x):
    stream = torch.cuda.Stream()
    host = torch.empty(4, pin_memory=True)
    with torch.cuda.stream(stream):
        host.copy_(x, non_blocking=True)
    if stream.query():
        return host.tolist()
    return None


def read_without_polling(x, ready):
    stream = torch.cuda.Stream()
    host = torch.empty(4, pin_memory=True)
    with torch.cuda.stream(stream):
        host.copy_(x, non_blocking=True)
    if ready:
        return host.tolist()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: the host reads 'host' (tolist) while copy_ on stream 'stream' may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: copy_ writes 'host' on stream 'stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the host wait for stream 'stream' before this: `stream.synchronize()`
    return None


# The poll kept in a flag first, then tested with another condition: the flag asks it again.
# A flag that only says the event was made polls nothing.
class EpochCounter:
    def __init__(self, epoch, rank):
        self.epoch, self.rank = epoch, rank
        self.host = torch.zeros(1, dtype=torch.int32, pin_memory=True)
        self.event = None

    def output_step(self):
        done = self.event is not None and self.event.query()
        if done and self.rank == 0:
            print(int(self.host[0]))
        self.host.copy_(self.epoch[:1], non_blocking=True)
        self.event = torch.cuda.Event()
        self.event.record()


class EpochCounterUnpolled:
    def __init__(self, epoch, rank):
        self.epoch, self.rank = epoch, rank
        self.host = torch.zeros(1, dtype=torch.int32, pin_memory=True)
        self.event = None

    def output_step(self):
        made = self.event is not None
        if made and self.rank == 0:
            print(int(self.host[0]))
            # CHECK-MESSAGES: :[[@LINE-1]]:23: warning: the host reads 'self.host[0]' (int) while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream (the copy is left pending when 'output_step' returns) [streamrace-host-access-before-sync]
            # CHECK-MESSAGES: :[[@LINE+2]]:9: note: copy_ writes 'self.host' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:23: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
        self.host.copy_(self.epoch[:1], non_blocking=True)
        self.event = torch.cuda.Event()
        self.event.record()
