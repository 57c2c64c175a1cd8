# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# What an object holds when the analysis meets it in another method than the one that set it:
# an event a wrapper class makes anew before each record, recorded by one method and waited for
# by a thread given the object (through its annotation); a dict the class makes empty and fills
# in a method no path walks; a flag set in `__init__` and changed where no path goes. Each racy
# class has a twin.
# RUN: %check_streamrace %s %t
import threading

import torch


class HandOffEvent:
    def __init__(self):
        self._event = torch.cuda.Event()
        self._recorded = threading.Event()

    def record(self):
        self._event = torch.cuda.Event()
        self._event.record()
        self._recorded.set()

    def wait(self, stream):
        self._recorded.wait()
        self._event.wait(stream)


class ExpertMaps:
    def __init__(self):
        self.maps = torch.zeros(8, device="cuda")
        self.ready = HandOffEvent()

    def rearrange(self, new_maps):
        self.maps.copy_(new_maps)
        self.ready.record()


def snapshot_worker(state: "ExpertMaps"):
    stream = torch.cuda.Stream()
    while True:
        state.ready.wait(stream)
        with torch.cuda.stream(stream):
            snapshot = state.maps.cpu()
        print(snapshot)


class LayerMaps:
    def __init__(self):
        self.layer_maps = torch.zeros(8, device="cuda")
        self.ready = HandOffEvent()

    def rearrange(self, new_maps):
        self.layer_maps.copy_(new_maps)


def snapshot_worker_racy(state: "LayerMaps"):
    stream = torch.cuda.Stream()
    while True:
        with torch.cuda.stream(stream):
            snapshot = state.layer_maps.cpu()
            # CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'state.layer_maps' is read by cpu on stream 'stream' while copy_ on the current stream may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'rearrange' returns) [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-9]]:9: note: copy_ writes 'self.layer_maps' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:24: note: make stream 'stream' wait for the current stream before entering it: `stream.wait_stream(torch.cuda.current_stream())`
        print(snapshot)


# The model states are added by `add_model`, which does no stream work and so is never walked:
# the loops over them are still entered.
class Model:
    def __init__(self):
        self.weights = torch.zeros(16, device="cuda")


class Balancer:
    def __init__(self):
        self.model_states = {}
        self.side = torch.cuda.Stream()

    def add_model(self, name, model):
        self.model_states[name] = model

    def update(self, new_weights):
        for model in self.model_states.values():
            model.weights.copy_(new_weights)

    def publish(self):
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            for model in self.model_states.values():
                model.weights.to("cpu", non_blocking=True)
        self.side.synchronize()


class BalancerRacy:
    def __init__(self):
        self.models = {}
        self.publish_stream = torch.cuda.Stream()

    def add_model(self, name, model):
        self.models[name] = model

    def update(self, new_scales):
        for model in self.models.values():
            model.scales.copy_(new_scales)

    def publish(self):
        with torch.cuda.stream(self.publish_stream):
            for model in self.models.values():
                model.scales.to("cpu", non_blocking=True)
                # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'self.models.values()[*].scales' is read by to on stream 'self.publish_stream' while copy_ on the current stream may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'update' returns) [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-7]]:13: note: copy_ writes 'self.models.values()[*].scales' on the current stream here
                # CHECK-MESSAGES: :[[@LINE-3]]:17: note: make stream 'self.publish_stream' wait for the current stream before entering it: `self.publish_stream.wait_stream(torch.cuda.current_stream())`
        self.publish_stream.synchronize()


# `self.overlap` is False where the object is made and set from the configuration in a method
# no path walks: the overlapping branch is taken as possible.
class Reducer:
    def __init__(self):
        self.overlap = False
        self.comm = torch.cuda.Stream()

    def configure(self, config):
        self.overlap = config.overlap

    def reduce(self, grad):
        grad.mul_(0.5)
        if self.overlap:
            self.comm.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.comm):
                torch.distributed.all_reduce(grad)
            torch.cuda.current_stream().wait_stream(self.comm)
        else:
            torch.distributed.all_reduce(grad)


class ReducerRacy:
    def __init__(self):
        self.overlapped = False
        self.reduce_stream = torch.cuda.Stream()

    def configure(self, config):
        self.overlapped = config.overlap

    def reduce(self, grad):
        grad.mul_(0.5)
        if self.overlapped:
            with torch.cuda.stream(self.reduce_stream):
                torch.distributed.all_reduce(grad)
                # CHECK-MESSAGES: :[[@LINE-1]]:46: warning: 'grad' is read and written by all_reduce on the process group's stream (the default group) while mul_ on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-5]]:9: note: mul_ reads and writes 'grad' on the current stream here
                # CHECK-MESSAGES: :[[@LINE-3]]:46: note: make stream 'self.reduce_stream' wait for the current stream before entering it: `self.reduce_stream.wait_stream(torch.cuda.current_stream())`
            torch.cuda.current_stream().wait_stream(self.reduce_stream)
        else:
            torch.distributed.all_reduce(grad)
