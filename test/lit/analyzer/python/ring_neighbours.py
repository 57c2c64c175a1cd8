# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Ring neighbours: `(rank + step) % n` and `(rank - step) % n`, for a step of `range(1, n)`, are
# never `rank` (the shift is never a whole turn), whatever rank is. A pull-based all-gather
# that fills the peers' chunks on a backend stream while the current stream fills the rank's own
# chunk touches two different chunks; counting from 0, the first step is the rank's own chunk.
# RUN: %check_streamrace %s %t
import torch

_backend = {}


def backend_stream():
    if "copy" not in _backend:
        _backend["copy"] = torch.cuda.Stream()
    return _backend["copy"]


def gather_the_peers(shard, peers, rank, world_size):
    current = torch.cuda.current_stream()
    stream = backend_stream()
    stream.wait_stream(current)
    chunks = torch.empty(world_size * shard.numel(), device=shard.device).chunk(world_size)
    chunks[rank].copy_(shard)
    with torch.cuda.stream(stream):
        for step in range(1, world_size):
            peer = (rank + step) % world_size
            chunks[peer].copy_(peers[peer])
    current.wait_stream(stream)
    return chunks


def gather_every_rank_racy(shard, peers, rank, world_size):
    current = torch.cuda.current_stream()
    stream = backend_stream()
    stream.wait_stream(current)
    chunks = torch.empty(world_size * shard.numel(), device=shard.device).chunk(world_size)
    chunks[rank].copy_(shard)
    with torch.cuda.stream(stream):
        for step in range(world_size):
            peer = (rank - step) % world_size
            chunks[peer].copy_(peers[peer])
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'chunks[peer]' is written by copy_ on stream '_backend['copy']' while copy_ on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-6]]:5: note: copy_ writes 'chunks[rank]' on the current stream here
    current.wait_stream(stream)
    return chunks
