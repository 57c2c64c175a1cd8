# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Work handles waited for through `map` or `filter` with a lambda (FairScale's OSS:
# `list(filter(lambda x: x.wait(), work_handles))`): the lambda's body runs for an element of
# the list, as a comprehension's does. A lambda that waits for nothing orders nothing.
# RUN: %check_streamrace %s %t
import torch.distributed as dist


def scaled_after_a_filter_that_waits(buffers, group):
    handles = [dist.broadcast(b, 0, group=group, async_op=True) for b in buffers]
    _ = list(filter(lambda handle: handle.wait(), handles))
    for buffer in buffers:
        buffer.mul_(2)


def scaled_after_a_map_that_waits(buffers, group):
    handles = [dist.broadcast(b, 0, group=group, async_op=True) for b in buffers]
    list(map(lambda handle: handle.wait(), handles))
    for buffer in buffers:
        buffer.mul_(2)


def scaled_after_a_filter_that_waits_for_nothing_racy(buffers, group):
    handles = [dist.broadcast(b, 0, group=group, async_op=True) for b in buffers]
    pending = list(filter(lambda handle: handle is not None, handles))
    for buffer in buffers:
        buffer.mul_(2)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'buffers[*]' is read and written by mul_ on the current stream while broadcast on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:31: note: broadcast reads and writes 'buffers[*]' on the process group's stream (group=group) here
    return pending
