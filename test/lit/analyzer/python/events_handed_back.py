# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# An event a function returns hands its caller the wait for the work recorded before it: an
# upload from pinned staging that returns its done event leaves the wait to the code that
# refills the staging (it synchronizes the event first), so the upload is not judged across
# calls, also when the event is an attribute of an object reached through others (Megatron-LM's
# inference controller publishing its context's bookkeeping). The same upload returning nothing
# leaves the refill of another call racing with it.
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
