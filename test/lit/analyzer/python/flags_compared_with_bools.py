# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A flag given as a collective's async_op and compared with a bool (`async_op is True`,
# `async_op == False`, `async_op is not True`) is tested as the flag itself: a wrapper that
# refuses `async_op=True` and passes the flag on makes a synchronous collective (PyTorch's
# quantized collectives), and a wait made only where `async_op is True` covers the asynchronous
# one. A wrapper that refuses the synchronous form reads what its asynchronous collective still
# writes. (Other flags compared with bools keep their own condition: read as the flag, DeepSpeed
# 0.19.8's `self.contiguous_gradients is False` split paths a join later mixed.)
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


def gather_synchronously(out, tensor, group=None, **kwargs):
    async_op = kwargs.get("async_op", False)
    if async_op is True:
        raise RuntimeError("async_op=True is not supported")
    dist.all_gather(out, tensor, group=group, async_op=async_op)
    return torch.cat(out)


def gather_waiting_when_asynchronous(out, tensor, group=None, async_op=False):
    work = dist.all_gather(out, tensor, group=group, async_op=async_op)
    if async_op == True:
        work.wait()
    return torch.cat(out)


def gather_asynchronously_racy(out, tensor, group=None, async_op=True):
    if async_op is not True:
        raise RuntimeError("only async_op=True is supported")
    dist.all_gather(out, tensor, group=group, async_op=async_op)
    return torch.cat(out)
    # CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'out' is read by torch.cat on the current stream while all_gather on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:21: note: all_gather writes 'out' on the process group's stream (group=group) here
