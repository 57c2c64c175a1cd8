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
