# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A method that waits for a handle another method of its class kept (`finish` waiting for the
# reduction `start` kept in `self.handle`, or for each handle `start` appended to
# `self.handles`) finds that collective possibly still running when it starts: what it does to
# the collective's tensors before the wait is unordered with it. Each racy class has a twin that
# waits first, and a method testing the handle for None takes the path where it is not.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class OneHandleRacy:
    def __init__(self, size):
        self.buf = torch.zeros(size, device="cuda")
        self.handle = None

    def start(self):
        self.handle = dist.all_reduce(self.buf, async_op=True)

    def finish(self):
        self.buf.div_(2)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'self.buf' is read and written by div_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :18:39: note: all_reduce reads and writes 'self.buf' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        if self.handle is not None:
            self.handle.wait()
            self.handle = None


class OneHandleWaited:
    def __init__(self, size):
        self.buf = torch.zeros(size, device="cuda")
        self.handle = None

    def start(self):
        self.handle = dist.all_reduce(self.buf, async_op=True)

    def finish(self):
        if self.handle is not None:
            self.handle.wait()
            self.handle = None
        self.buf.div_(2)


class HandleListRacy:
    def __init__(self, size):
        self.buf = torch.zeros(size, device="cuda")
        self.handles = []

    def start(self):
        self.handles.append(dist.all_reduce(self.buf, async_op=True))

    def finish(self, out):
        out.copy_(self.buf)
        # CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'self.buf' is read by copy_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :51:45: note: all_reduce reads and writes 'self.buf' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:19: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        for handle in self.handles:
            handle.wait()
        self.handles.clear()


class HandleListWaited:
    def __init__(self, size):
        self.buf = torch.zeros(size, device="cuda")
        self.handles = []

    def start(self):
        self.handles.append(dist.all_reduce(self.buf, async_op=True))

    def finish(self, out):
        for handle in self.handles:
            handle.wait()
        self.handles.clear()
        out.copy_(self.buf)


class NoneTestedFirst:
    """The branch that touches the buffer is the one where no handle is kept."""

    def __init__(self, size):
        self.buf = torch.zeros(size, device="cuda")
        self.handle = None

    def start(self):
        self.handle = dist.all_reduce(self.buf, async_op=True)

    def finish(self):
        if self.handle is None:
            self.buf.zero_()
            return
        self.handle.wait()
        self.handle = None
        self.buf.div_(2)


class KeepsItsOwnFirst:
    """A method that keeps a handle of its own before it waits waits for its own collective."""

    def __init__(self, size):
        self.buf = torch.zeros(size, device="cuda")
        self.handle = None

    def step(self, grad):
        self.buf.copy_(grad)
        self.handle = dist.all_reduce(self.buf, async_op=True)
        self.handle.wait()
        self.handle = None
        return self.buf.sum()


class GuardedByItsKind:
    """TorchRec's awaitables wait for the handle when it is one (`isinstance(h, dist.Work)`):
    a collective's handle is."""

    def __init__(self, size, group):
        self.out = torch.empty(size, device="cuda")
        self.awaitable = dist.all_to_all_single(output=self.out, input=torch.ones(size, device="cuda"), group=group, async_op=True)

    def wait(self):
        if isinstance(self.awaitable, dist.Work):
            self.awaitable.wait()
        return self.out.tolist()


class WaitedUnderAnotherTest:
    """A wait under a test of something else says when the collective was started, in terms
    the check does not relate to the constructor's (`== 1` there, `> 1` here): left alone."""

    def __init__(self, size, group):
        self.workers = group.size()
        self.splits = torch.ones(size, device="cuda")
        if self.workers == 1:
            return
        self.out = torch.empty(size, device="cuda")
        self.awaitable = dist.all_to_all_single(output=self.out, input=self.splits, group=group, async_op=True)

    def wait(self):
        if self.workers > 1:
            self.awaitable.wait()
        return self.out.tolist()
