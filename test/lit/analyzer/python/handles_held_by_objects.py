# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Collective handles kept in an object made to hold them (Megatron-LM's layer-wise all-gather
# handle: a constructor that keeps the list, a `wait()` that waits for its last, under a test of
# the list). The object's fields are the handles its constructor was given, and its `wait()`
# waits for what it waits for, in the method that made it and in another method of the class
# that finds it kept. A handle dropped unwaited is reported as for a bare handle. Each racy
# class has a twin that waits and stays silent.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class _GatherHandles:
    """Waiting for the last handle is enough: the collectives share the group's stream."""

    def __init__(self, handles):
        self.handles = handles

    def wait(self):
        if self.handles:
            self.handles[-1].wait()
        self.handles = None


class LayerwiseGatherReadFirst:
    def __init__(self, numel, group):
        self.grad_data = torch.zeros(numel, device="cuda")
        self.group = group
        self.gather_list = None
        self.param_gather_handle = None

    def start_param_sync(self, local):
        gather_list = list(self.grad_data.chunk(4))
        works = []
        work = dist.all_gather(gather_list, local, group=self.group, async_op=True)
        if work is not None:
            works.append(work)
        self.gather_list = gather_list
        self.param_gather_handle = _GatherHandles(works)

    def finish_param_sync(self, params):
        if self.param_gather_handle is not None:
            for param, gathered in zip(params, self.gather_list):
                param.data.copy_(gathered)
                # CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'self.grad_data[*]' is read by copy_ on the current stream while all_gather on the process group's stream (group=self.group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :35:32: note: all_gather writes 'self.grad_data' on the process group's stream (group=self.group) here
                # CHECK-MESSAGES: :[[@LINE-3]]:34: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
            self.param_gather_handle.wait()
            self.param_gather_handle = None


class LayerwiseGatherWaited:
    def __init__(self, numel, group):
        self.grad_data = torch.zeros(numel, device="cuda")
        self.group = group
        self.gather_list = None
        self.param_gather_handle = None

    def start_param_sync(self, local):
        gather_list = list(self.grad_data.chunk(4))
        works = []
        work = dist.all_gather(gather_list, local, group=self.group, async_op=True)
        if work is not None:
            works.append(work)
        self.gather_list = gather_list
        self.param_gather_handle = _GatherHandles(works)

    def finish_param_sync(self, params):
        if self.param_gather_handle is not None:
            self.param_gather_handle.wait()
            self.param_gather_handle = None
            for param, gathered in zip(params, self.gather_list):
                param.data.copy_(gathered)


class LayerwiseGatherStartedHere:
    """The gather started and finished in one call: the new object's field is the list."""

    def __init__(self, numel, group):
        self.grad_data = torch.zeros(numel, device="cuda")
        self.group = group

    def sync_too_early(self, local, params):
        gather_list = list(self.grad_data.chunk(4))
        works = [dist.all_gather(gather_list, local, group=self.group, async_op=True)]
        handle = _GatherHandles(works)
        for param, gathered in zip(params, gather_list):
            param.data.copy_(gathered)
            # CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'self.grad_data[*]' is read by copy_ on the current stream while all_gather on the process group's stream (group=self.group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :85:34: note: all_gather writes 'self.grad_data' on the process group's stream (group=self.group) here
            # CHECK-MESSAGES: :[[@LINE-3]]:30: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        handle.wait()

    def sync(self, local, params):
        gather_list = list(self.grad_data.chunk(4))
        works = [dist.all_gather(gather_list, local, group=self.group, async_op=True)]
        handle = _GatherHandles(works)
        handle.wait()
        for param, gathered in zip(params, gather_list):
            param.data.copy_(gathered)


class _Pending:
    def __init__(self, work):
        self.work = work

    def wait(self):
        self.work.wait()


class ReductionDropped:
    def __init__(self, numel, group):
        self.grads = torch.zeros(numel, device="cuda")
        self.group = group
        self.pending = None

    def start(self):
        self.pending = _Pending(dist.all_reduce(self.grads, group=self.group, async_op=True))

    def finish(self, out):
        assert self.pending is not None
        self.pending = None
        out.copy_(self.grads)
        # CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'self.grads' is read by copy_ on the current stream while all_reduce on the process group's stream (group=self.group) may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'start' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :118:49: note: all_reduce reads and writes 'self.grads' on the process group's stream (group=self.group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:19: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this


class ReductionWaited:
    def __init__(self, numel, group):
        self.grads = torch.zeros(numel, device="cuda")
        self.group = group
        self.pending = None

    def start(self):
        self.pending = _Pending(dist.all_reduce(self.grads, group=self.group, async_op=True))

    def finish(self, out):
        assert self.pending is not None
        self.pending.wait()
        self.pending = None
        out.copy_(self.grads)
