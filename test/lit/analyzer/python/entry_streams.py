# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A private helper that every call in the package makes inside `with torch.cuda.stream(S):`
# starts on S when analyzed alone, not on the step's current stream (FSDP's _reduce_grad runs
# under its post-backward stream). One call outside the context, and the helper's race is one.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class GradState:
    def __init__(self):
        self.post_backward_stream = torch.cuda.Stream()
        self.all_reduce_stream = torch.cuda.Stream()


def _reduce_on_the_post_backward_stream(state, grad, shard):
    dist.reduce_scatter_tensor(shard, grad, group=state.process_group)
    state.all_reduce_stream.wait_stream(state.post_backward_stream)
    with torch.cuda.stream(state.all_reduce_stream):
        dist.all_reduce(shard, group=state.inter_node_group)


def post_backward(state, grad, shard):
    state.post_backward_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(state.post_backward_stream):
        _reduce_on_the_post_backward_stream(state, grad, shard)


def _reduce_racy(state, grad, shard):
    dist.reduce_scatter_tensor(shard, grad, group=state.process_group)
    state.all_reduce_stream.wait_stream(state.post_backward_stream)
    with torch.cuda.stream(state.all_reduce_stream):
        dist.all_reduce(shard, group=state.inter_node_group)
        # CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'shard' is read and written by all_reduce on the process group's stream (group=state.inter_node_group) while reduce_scatter_tensor on the process group's stream (group=state.process_group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:32: note: reduce_scatter_tensor writes 'shard' on the process group's stream (group=state.process_group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:25: note: make stream 'state.all_reduce_stream' wait for the current stream before entering it: `state.all_reduce_stream.wait_stream(torch.cuda.current_stream())`


def post_backward_or_not(state, grad, shard, overlap):
    if overlap:
        with torch.cuda.stream(state.post_backward_stream):
            _reduce_racy(state, grad, shard)
    else:
        _reduce_racy(state, grad, shard)
