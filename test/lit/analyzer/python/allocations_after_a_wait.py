# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A block the caching allocator hands out on one stream may still be in use by the work that
# stream was given before: another stream may write it only once it has waited for all of that.
# A side stream that waited for the current stream, with nothing given to the current stream
# since, may fill a buffer allocated there afterwards (a symmetric-memory all-gather pulling each
# peer's shard into a new output); a fill made by the allocation (`torch.zeros`) or any other
# work given to the current stream after the wait is not ordered before the side stream.
# RUN: %check_streamrace %s %t
import torch


def pull_into_a_new_buffer(shard, peers):
    current = torch.cuda.current_stream()
    backend_stream = torch.cuda.Stream()
    backend_stream.wait_stream(current)
    gathered = shard.new_empty(len(peers) * shard.shape[0], shard.shape[1])
    with torch.cuda.stream(backend_stream):
        for i, peer in enumerate(peers):
            gathered[i * shard.shape[0]:(i + 1) * shard.shape[0]].copy_(peer)
    current.wait_stream(backend_stream)
    return gathered


def pull_into_a_zeroed_buffer_racy(shard, peers):
    current = torch.cuda.current_stream()
    backend_stream = torch.cuda.Stream()
    backend_stream.wait_stream(current)
    gathered = torch.zeros(len(peers) * shard.shape[0], shard.shape[1], device=shard.device)
    with torch.cuda.stream(backend_stream):
        for i, peer in enumerate(peers):
            gathered[i * shard.shape[0]:(i + 1) * shard.shape[0]].copy_(peer)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'gathered' is written by copy_ on stream 'backend_stream', which has not waited for the current stream since 'gathered' was allocated there (torch.zeros): its block may still be in use by earlier work [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-5]]:16: note: torch.zeros (allocation) writes 'gathered' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'backend_stream' wait for the current stream before entering it: `backend_stream.wait_stream(torch.cuda.current_stream())`
    current.wait_stream(backend_stream)
    return gathered


def pull_after_more_work_racy(shard, peers):
    current = torch.cuda.current_stream()
    backend_stream = torch.cuda.Stream()
    backend_stream.wait_stream(current)
    scaled = shard * 2
    gathered = scaled.new_empty(len(peers) * shard.shape[0], shard.shape[1])
    with torch.cuda.stream(backend_stream):
        for i, peer in enumerate(peers):
            gathered[i * shard.shape[0]:(i + 1) * shard.shape[0]].copy_(peer)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'gathered' is written by copy_ on stream 'backend_stream', which has not waited for the current stream since 'gathered' was allocated there (scaled.new_empty): its block may still be in use by earlier work [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-5]]:16: note: scaled.new_empty (allocation) writes 'gathered' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'backend_stream' wait for the current stream before entering it: `backend_stream.wait_stream(torch.cuda.current_stream())`
    current.wait_stream(backend_stream)
    return gathered
