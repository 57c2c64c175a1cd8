# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A function chosen on a branch and called after the branches join (Megatron-LM's `p2p_func`,
# one of a ring exchange, a batched exchange and pairwise isend/irecv): the call runs one of them,
# so each is followed, and what each returns stays its own (a work handle made here is not None).
# The racy function releases what the pairwise choice still sends; its twin waits first.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


def exchange_in_a_ring(tensor, peer):
    return None


def exchange_pairwise(tensor, peer):
    return dist.isend(tensor, dst=peer)


def send_then_release_racy(output, peer, ring):
    if ring:
        exchange = exchange_in_a_ring
    else:
        exchange = exchange_pairwise
    request = exchange(output, peer)
    output.data = torch.empty((1,), device=output.device, dtype=output.dtype)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the storage of 'output' is released while isend reads 'output' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
    # CHECK-MESSAGES: :16:23: note: isend reads 'output' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-4]]:15: note: 'exchange_pairwise' is called here
    # CHECK-MESSAGES: :[[@LINE-4]]:5: note: wait for the collective's work handle (`work.wait()`) before releasing the storage
    if request is not None:
        request.wait()


def send_wait_then_release(output, peer, ring):
    exchange = exchange_in_a_ring if ring else exchange_pairwise
    request = exchange(output, peer)
    if request is not None:
        request.wait()
    output.data = torch.empty((1,), device=output.device, dtype=output.dtype)
