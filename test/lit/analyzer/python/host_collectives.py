# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A collective given host tensors only runs on the host (Gloo): without async_op it is done when
# the call returns, so ranks agreeing on a size through a CPU tensor read it at once. With
# async_op the host waits for it in wait(), which no device synchronize replaces. Neither waits
# for a device stream: a non-blocking copy still landing in the tensor races with the
# collective. Each racy function has a twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


def agree_on_size(group, size):
    agreed = torch.tensor([size], dtype=torch.int64, device="cpu")
    dist.all_reduce(agreed, op=dist.ReduceOp.MIN, group=group)
    return int(agreed.item())


def agree_on_flags(group, flags):
    votes = torch.zeros(len(flags), dtype=torch.int32)
    dist.all_reduce(votes, group=group)
    return votes.tolist()


def agree_async_read_early_racy(group, size):
    agreed = torch.tensor([size], dtype=torch.int64)
    work = dist.all_reduce(agreed, group=group, async_op=True)
    early = int(agreed.item())
    # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: the host reads 'agreed' (item) while all_reduce on the process group's stream (group=group) may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-3]]:28: note: all_reduce reads and writes 'agreed' on the process group's stream (group=group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:17: note: wait for the collective's work handle (`work.wait()`) before this
    work.wait()
    return early


def agree_async_read_after_wait(group, size):
    agreed = torch.tensor([size], dtype=torch.int64)
    work = dist.all_reduce(agreed, group=group, async_op=True)
    work.wait()
    return int(agreed.item())


def reduce_a_download_racy(group, counts):
    staged = counts.to("cpu", non_blocking=True)
    dist.all_reduce(staged, group=group)
    # CHECK-MESSAGES: :[[@LINE-1]]:21: warning: the host writes 'staged' (all_reduce) while counts.to on the current stream may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-3]]:14: note: counts.to writes 'staged' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:21: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
    torch.cuda.current_stream().synchronize()
    return staged.tolist()


def reduce_a_download(group, counts):
    staged = counts.to("cpu", non_blocking=True)
    torch.cuda.current_stream().synchronize()
    dist.all_reduce(staged, group=group)
    return staged.tolist()


# A device tensor's collective runs on the process group's stream, which the current stream
# waits for without async_op: `.item()` then waits for the current stream.
def agree_on_device(group, size):
    agreed = torch.tensor([size], device="cuda")
    dist.all_reduce(agreed, group=group)
    return int(agreed.item())
