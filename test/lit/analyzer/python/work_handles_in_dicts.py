# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Work handles kept in a dict under constant keys and handed back by a followed call (Megatron-LM's
# p2p helpers: `reqs["send_next"] = dist.isend(...)`, popped by the schedule): each key keeps its
# own handle, so waiting for the receive does not wait for the send, and waiting for the send
# does. Whether the dict is empty follows from what was stored in it (`if len(reqs) > 0:` waits
# for each). Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


def exchange(send, receive, peer, receiving_group, wait_here=False):
    handles = {}
    if send is not None:
        handles["send"] = dist.isend(send, dst=peer)
    if receive is not None:
        handles["receive"] = dist.irecv(receive, src=peer, group=receiving_group)
    if wait_here and len(handles) > 0:
        for handle in handles.values():
            handle.wait()
        handles = None
    return handles


def release_after_waiting_for_the_receive_racy(output, input, peer, group):
    handles = exchange(output, input, peer, group)
    handles.pop("receive").wait()
    output.data = torch.empty((1,), device=output.device, dtype=output.dtype)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the storage of 'output' is released while isend reads 'output' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
    # CHECK-MESSAGES: :15:38: note: isend reads 'output' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-5]]:15: note: 'exchange' is called here
    # CHECK-MESSAGES: :[[@LINE-4]]:5: note: wait for the collective's work handle (`work.wait()`) before releasing the storage
    handles["send"].wait()


def release_after_waiting_for_the_send(output, input, peer, group):
    handles = exchange(output, input, peer, group)
    handles["send"].wait()
    output.data = torch.empty((1,), device=output.device, dtype=output.dtype)
    handles.pop("receive").wait()


def release_after_the_exchange_waited(output, input, peer, group):
    exchange(output, input, peer, group, wait_here=True)
    output.data = torch.empty((1,), device=output.device, dtype=output.dtype)


# The handles a batched exchange returns, kept in a list by `extend`: a list a handle went into is
# not empty, so the helper's `len(handles) > 0` branch waits for it.
def exchange_batched(send, peer, wait_here=False):
    handles = []
    handles.extend(dist.batch_isend_irecv([dist.P2POp(dist.isend, send, peer)]))
    if wait_here and len(handles) > 0:
        for handle in handles:
            handle.wait()
    return handles


def release_during_the_batched_exchange_racy(output, peer):
    handles = exchange_batched(output, peer)
    output.data = torch.empty((1,), device=output.device, dtype=output.dtype)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the storage of 'output' is released while batch_isend_irecv reads 'output' on the process group's point-to-point stream may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE-11]]:20: note: batch_isend_irecv reads 'output' on the process group's point-to-point stream here
    # CHECK-MESSAGES: :[[@LINE-4]]:15: note: 'exchange_batched' is called here
    # CHECK-MESSAGES: :[[@LINE-4]]:5: note: wait for the collective's work handle (`work.wait()`) before releasing the storage
    for handle in handles:
        handle.wait()


def release_after_the_batched_exchange_waited(output, peer):
    exchange_batched(output, peer, wait_here=True)
    output.data = torch.empty((1,), device=output.device, dtype=output.dtype)


# A keyword-only parameter not given takes its default (`*, wait_on_reqs=True` in Megatron-LM's
# `_communicate`): the send below is waited for unless the caller says otherwise.
def send(tensor, peer, *, wait_here=True):
    work = dist.isend(tensor, dst=peer)
    if wait_here:
        work.wait()
    return work


def release_during_a_send_left_running_racy(output, peer):
    work = send(output, peer, wait_here=False)
    output.data = torch.empty((1,), device=output.device, dtype=output.dtype)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the storage of 'output' is released while isend reads 'output' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE-10]]:23: note: isend reads 'output' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-4]]:12: note: 'send' is called here
    # CHECK-MESSAGES: :[[@LINE-4]]:5: note: wait for the collective's work handle (`work.wait()`) before releasing the storage
    work.wait()


def release_after_a_send_waited_by_default(output, peer):
    send(output, peer)
    output.data = torch.empty((1,), device=output.device, dtype=output.dtype)
