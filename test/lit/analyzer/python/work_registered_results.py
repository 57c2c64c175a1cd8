# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A tensor registered with a work handle (`_register_work(output, work)`, how PyTorch's
# functional collectives hand out results) is waited for by whoever receives it (`wait_tensor`
# waits for the handle): returning it while a side stream still fills it is the protocol. The
# same function returning the tensor without registering it hands out bytes still being written.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist

_streams = {}


def backend_stream():
    if "pull" not in _streams:
        _streams["pull"] = torch.cuda.Stream()
    return _streams["pull"]


class EventWork(dist.Work):
    def __init__(self):
        super().__init__()
        self.event = torch.cuda.Event()
        self.event.record()

    def wait(self, timeout=None):
        self.event.wait()
        return True


def pull_and_register(shard, peers):
    output = shard.new_empty(len(peers), shard.numel())
    stream = backend_stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i, peer in enumerate(peers):
            output[i].copy_(peer)
        torch._C._distributed_c10d._register_work(output, EventWork())
        return output


def pull_racy(shard, peers):
    output = shard.new_empty(len(peers), shard.numel())
    stream = backend_stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i, peer in enumerate(peers):
            output[i].copy_(peer)
        return output
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'output' is returned to the caller of 'pull_racy', which uses it on the current stream, while copy_ on stream '_streams['pull']' may still be writing it; nothing makes the current stream wait for that stream before the return [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-3]]:13: note: copy_ writes 'output[i]' on stream '_streams['pull']' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream '_streams['pull']' before returning (wait_stream, or an event recorded after the write)
