# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A counter's step, which reads last step's download only once its event's poll said it was done,
# run from a model's step: the event reached through the model's attribute is the event the
# counter records, as an attribute the package stores events only in names one event by role.
# A model that reads the counter's host copy right after the step, without a poll, races with
# the download the step just started.
# RUN: %check_streamrace %s %t
import torch


class PolledCounter:
    def __init__(self, epoch, rank):
        self.epoch, self.rank = epoch, rank
        self.host = torch.zeros(1, dtype=torch.int32, pin_memory=True)
        self.copied = None

    def output_step(self):
        done = self.copied is not None and self.copied.query()
        if done and self.rank == 0:
            print(int(self.host[0]))
        self.host.copy_(self.epoch[:1], non_blocking=True)
        self.copied = torch.cuda.Event()
        self.copied.record()


class Model:
    def __init__(self, counter):
        self.counter = counter
        self.stream = torch.cuda.current_stream()

    def step(self, x):
        y = x * 2
        self.counter.output_step()
        return y


class PeekingModel:
    def __init__(self, counter):
        self.counter = counter
        self.stream = torch.cuda.current_stream()

    def step(self, x):
        self.counter.output_step()
        return int(self.counter.host[0])
        # CHECK-MESSAGES: :[[@LINE-1]]:20: warning: the host reads 'self.counter.host[0]' (int) while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-25]]:9: note: copy_ writes 'self.counter.host' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: 'output_step' is called here
        # CHECK-MESSAGES: :[[@LINE-4]]:20: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
