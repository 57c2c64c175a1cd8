# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A parameter and the tensors its attributes hold (FairScale keeps a parameter's fp32 and fp16
# shards in attributes of the parameter): a tensor operation on the parameter touches its own
# bytes, not its shards', unless the package points the parameter's `.data` at a shard. A
# storage freed by a helper that tests its size first has no block on either path; one resized
# back has a new block, which the work still pending on the old one does not touch.
# RUN: %check_streamrace %s %t
import torch


def free_storage_(data):
    if data.untyped_storage().size() > 0:
        data.untyped_storage().resize_(0)


def alloc_storage_(data, numel):
    if data.untyped_storage().size() == numel:
        return
    data.untyped_storage().resize_(numel)


# A tensor operation on the parameter beside a copy into one of its shards.
def scaled_beside_the_shard_cast(params):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for p in params:
            p._half.copy_(p._full)
    for p in params:
        p.mul_(2)
    torch.cuda.current_stream().wait_stream(side)


def shard_scaled_beside_its_cast_racy(params):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for p in params:
            p._half.copy_(p._full)
    for p in params:
        p._half.mul_(2)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'params[*]._half' is read and written by mul_ on the current stream while copy_ on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-4]]:13: note: copy_ writes 'params[*]._half' on stream 'side' here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: make the current stream wait for stream 'side' before this: `torch.cuda.current_stream().wait_stream(side)`
    torch.cuda.current_stream().wait_stream(side)


# The package points a parameter's `.data` at its shard: the parameter's bytes are the shard's.
class CastShards:
    def __init__(self, params):
        self.params = params
        self.cast_stream = torch.cuda.Stream()

    def cast(self):
        self.cast_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.cast_stream):
            for p in self.params:
                p._lowp.copy_(p._fp32)
                p.data = p._lowp

    def forward_racy(self, x):
        self.cast()
        for p in self.params:
            x = p.matmul(x)
            # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'self.params[*]' is read by matmul on the current stream while copy_ on stream 'self.cast_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-8]]:17: note: copy_ writes 'self.params[*]._lowp' on stream 'self.cast_stream' here
            # CHECK-MESSAGES: :[[@LINE-5]]:9: note: 'cast' is called here
            # CHECK-MESSAGES: :[[@LINE-4]]:17: note: make the current stream wait for stream 'self.cast_stream' before this: `torch.cuda.current_stream().wait_stream(self.cast_stream)`
        return x

    def forward_ordered(self, x):
        self.cast()
        torch.cuda.current_stream().wait_stream(self.cast_stream)
        for p in self.params:
            x = p.matmul(x)
        return x


# Made, freed at once by the size-testing helper (which the walk reaches one call past its
# depth bound: it only changes lifetimes), and grown back on a side stream: its making is no
# block the side stream may still be using.
class LazyShards:
    def __init__(self, params):
        self.params = params
        self.gather_stream = torch.cuda.Stream()

    def _make_shard(self, p):
        p._gathered = torch.zeros(p.numel() * 8, device="cuda")
        free_storage_(p._gathered)

    def _make_shards(self):
        for p in self.params:
            self._make_shard(p)

    def _lazy_init(self):
        self._make_shards()

    def gather(self):
        self._lazy_init()
        with torch.cuda.stream(self.gather_stream):
            for p in self.params:
                alloc_storage_(p._gathered, p.numel() * 8)
                p._gathered.fill_(0)
        torch.cuda.current_stream().wait_stream(self.gather_stream)

    def gather_kept_racy(self):
        for p in self.params:
            p._kept = torch.zeros(p.numel() * 8, device="cuda")
        with torch.cuda.stream(self.gather_stream):
            for p in self.params:
                p._kept.fill_(0)
                # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'self.params[*]._kept' is read and written by fill_ on stream 'self.gather_stream', which has not waited for the current stream since 'self.params[*]._kept' was allocated there (torch.zeros): its block may still be in use by earlier work [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-5]]:23: note: torch.zeros (allocation) writes 'self.params[*]._kept' on the current stream here
                # CHECK-MESSAGES: :[[@LINE-3]]:17: note: make stream 'self.gather_stream' wait for the current stream before entering it: `self.gather_stream.wait_stream(torch.cuda.current_stream())`
        torch.cuda.current_stream().wait_stream(self.gather_stream)


# A shard read on one stream, given back (with record_stream) and grown back: what a second
# stream then writes into it is a new block, which the first stream's read never touched.
def regrown_before_the_next_write(shard, saved):
    reader = torch.cuda.Stream()
    writer = torch.cuda.Stream()
    reader.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(reader):
        saved.copy_(shard)
    shard.record_stream(reader)
    free_storage_(shard)
    alloc_storage_(shard, 1024)
    writer.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(writer):
        shard.fill_(1)
    torch.cuda.current_stream().wait_stream(writer)
    torch.cuda.current_stream().wait_stream(reader)


def written_while_read_racy(shard, saved):
    reader = torch.cuda.Stream()
    writer = torch.cuda.Stream()
    reader.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(reader):
        saved.copy_(shard)
    writer.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(writer):
        shard.fill_(1)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'shard' is read and written by fill_ on stream 'writer' while copy_ on stream 'reader' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:21: note: copy_ reads 'shard' on stream 'reader' here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: make stream 'writer' wait for stream 'reader' before this: `torch.cuda.current_stream().wait_stream(reader)`
    torch.cuda.current_stream().wait_stream(writer)
    torch.cuda.current_stream().wait_stream(reader)
