# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A stream a helper makes for the object it is given (FSDP's `_init_streams(state)`) is named by
# its attribute, as the package's other functions reach it through other names of that object: a
# wait made through one name orders work enqueued through another. The racy pair's stream is
# waited for nowhere.
# RUN: %check_streamrace %s %t
import torch


def _init_streams(state):
    state.unshard_stream = torch.cuda.Stream()
    state.prefetch_stream = torch.cuda.Stream()


def lazy_init_and_unshard(state):
    _init_streams(state)
    state.unshard_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(state.unshard_stream):
        state.full_param.copy_(state.sharded_param)


def wait_for_unshard(fsdp_state):
    torch.cuda.current_stream().wait_stream(fsdp_state.unshard_stream)


def forward(fsdp_state):
    fsdp_state.full_param.mul_(2)


def lazy_init_and_prefetch(state):
    _init_streams(state)
    state.prefetch_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(state.prefetch_stream):
        state.prefetched_param.copy_(state.sharded_param)


def forward_with_the_prefetched_racy(fsdp_state):
    fsdp_state.prefetched_param.mul_(2)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'fsdp_state.prefetched_param' is read and written by mul_ on the current stream while copy_ on stream 'state.prefetch_stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'lazy_init_and_prefetch' returns) [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-6]]:9: note: copy_ writes 'state.prefetched_param' on stream 'state.prefetch_stream' here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: make the current stream wait for stream 'state.prefetch_stream' between the two (wait_stream, or an event recorded after the first and waited on before the second)
