# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# What a call into code outside the package hands back under a side stream was computed there:
# an input distribution's awaitable waited for under its stream (TorchRec's pipelined forward),
# a library's forward. The current stream must wait for that stream before it reads the result.
# A stream kept as an optional attribute (`stream=None`) may be None, and `stream(None)` changes
# nothing: where the code tests `self._stream is not None` before waiting, the path without a
# stream waits for nothing and races with nothing. What an object the class holds computes when
# called on the current stream (a sampler, a model's forward) is computed there too: a side
# stream copying it down must wait for the current stream first.
# RUN: %check_streamrace %s %t
import torch


class PipelinedForwardRacy:
    def __init__(self, module, stream=None):
        self._module = module
        self._stream = stream

    def __call__(self, request):
        with torch.cuda.stream(self._stream):
            data = request.wait()
        if self._stream is not None:
            data.record_stream(torch.cuda.current_stream())
        return self._module.compute_and_output_dist(data)
        # CHECK-MESSAGES: :[[@LINE-1]]:53: warning: 'data' is read by compute_and_output_dist on the current stream while request.wait on stream 'self._stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:20: note: request.wait writes 'data' on stream 'self._stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:53: note: make the current stream wait for stream 'self._stream' before this: `torch.cuda.current_stream().wait_stream(self._stream)`


class PipelinedForwardOrdered:
    def __init__(self, module, stream=None):
        self._module = module
        self._stream = stream

    def __call__(self, request):
        with torch.cuda.stream(self._stream):
            data = request.wait()
        if self._stream is not None:
            torch.cuda.current_stream().wait_stream(self._stream)
            data.record_stream(torch.cuda.current_stream())
        return self._module.compute_and_output_dist(data)


def batches_prefetched_in_turn(requests, prefetch):
    # Each wait hands back a new batch: the next one's making does not meet the prefetch
    # stream's read of the one before.
    data_dist = torch.cuda.Stream()
    prefetch_stream = torch.cuda.Stream()
    for request in requests:
        with torch.cuda.stream(data_dist):
            data = request.wait()
        prefetch_stream.wait_stream(data_dist)
        with torch.cuda.stream(prefetch_stream):
            prefetch(data)
        data.record_stream(prefetch_stream)
    torch.cuda.current_stream().wait_stream(prefetch_stream)


def batch_prefetched_before_it_lands_racy(requests, prefetch):
    data_dist = torch.cuda.Stream()
    prefetch_stream = torch.cuda.Stream()
    for request in requests:
        with torch.cuda.stream(data_dist):
            data = request.wait()
        with torch.cuda.stream(prefetch_stream):
            prefetch(data)
            # CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'data' is read by prefetch on stream 'prefetch_stream' while request.wait on stream 'data_dist' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:20: note: request.wait writes 'data' on stream 'data_dist' here
            # CHECK-MESSAGES: :[[@LINE-3]]:22: note: make stream 'prefetch_stream' wait for stream 'data_dist' before this: `torch.cuda.current_stream().wait_stream(data_dist)`
        data.record_stream(prefetch_stream)
    torch.cuda.current_stream().wait_stream(prefetch_stream)


class PrefetchForward:
    """A package class whose `compute_and_output_dist` takes no arguments: the call above, given
    one, is another object's method of that name, not this one."""

    def __init__(self, module):
        self._module = module

    def compute_and_output_dist(self):
        return self._module


def library_forward_racy(model, x):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        hidden = model.encoder(x)
    return torch.relu(hidden)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'hidden' is dropped when 'library_forward_racy' returns while torch.relu reads 'hidden' on the current stream may still use it; the caching allocator can give its block to new work on stream 'side' at once [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE-2]]:23: note: torch.relu reads 'hidden' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-4]]:18: note: 'hidden' is made here, on stream 'side'
    # CHECK-MESSAGES: :[[@LINE-4]]:5: note: tell the allocator about that use before it returns: `hidden.record_stream(torch.cuda.current_stream())`
    # CHECK-MESSAGES: :[[@LINE-5]]:23: warning: 'hidden' is read by torch.relu on the current stream while model.encoder on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-7]]:18: note: model.encoder writes 'hidden' on stream 'side' here
    # CHECK-MESSAGES: :[[@LINE-7]]:23: note: make the current stream wait for stream 'side' before this: `torch.cuda.current_stream().wait_stream(side)`
    # CHECK-FIXES: {{^}}    hidden.record_stream(torch.cuda.current_stream()){{$}}
    # CHECK-FIXES-NEXT: {{^}}    return torch.relu(hidden){{$}}


# The result's block is from the pool of the stream that made it: the current stream's use of
# it is recorded before the name that holds it is dropped.
def library_forward_ordered(model, x):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        hidden = model.encoder(x)
    torch.cuda.current_stream().wait_stream(side)
    hidden.record_stream(torch.cuda.current_stream())
    return torch.relu(hidden)


# A result the code checks is a tensor, made under the object's stream and read by a module on
# the current stream: without record_stream, the next result made there may take its block.
class CheckedResultForward:
    def __init__(self, module):
        self._module = module
        self._stream = torch.cuda.Stream()

    def forward_racy(self, request):
        with torch.cuda.stream(self._stream):
            data = request.wait()
        torch.cuda.current_stream().wait_stream(self._stream)
        assert isinstance(data, torch.Tensor)
        return self._module.compute_and_output_dist(data)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'data' is dropped when 'forward_racy' returns while compute_and_output_dist reads 'data' on the current stream may still use it; the caching allocator can give its block to new work on stream 'self._stream' at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-2]]:53: note: compute_and_output_dist reads 'data' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-6]]:20: note: 'data' is made here, on stream 'self._stream'
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: tell the allocator about that use before it returns: `data.record_stream(torch.cuda.current_stream())`

    def forward_recorded(self, request):
        with torch.cuda.stream(self._stream):
            data = request.wait()
        torch.cuda.current_stream().wait_stream(self._stream)
        assert isinstance(data, torch.Tensor)
        data.record_stream(torch.cuda.current_stream())
        return self._module.compute_and_output_dist(data)


# What an awaitable hands back when waited for under a stream is the data that stream's work
# made (TorchRec's input distribution hands back a KeyedJaggedTensor), whatever its use says.
class AwaitedLookup:
    def __init__(self, module):
        self._module = module
        self._stream = torch.cuda.Stream()

    def lookup_racy(self, request):
        with torch.cuda.stream(self._stream):
            features = request.wait()
        torch.cuda.current_stream().wait_stream(self._stream)
        return self._module.compute_and_output_dist(features)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'features' is dropped when 'lookup_racy' returns while compute_and_output_dist reads 'features' on the current stream may still use it; the caching allocator can give its block to new work on stream 'self._stream' at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-2]]:53: note: compute_and_output_dist reads 'features' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-5]]:24: note: 'features' is made here, on stream 'self._stream'
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: tell the allocator about that use before it returns: `features.record_stream(torch.cuda.current_stream())`

    def lookup_recorded(self, request):
        with torch.cuda.stream(self._stream):
            features = request.wait()
        torch.cuda.current_stream().wait_stream(self._stream)
        features.record_stream(torch.cuda.current_stream())
        return self._module.compute_and_output_dist(features)


class Buffer:
    def __init__(self, data):
        self.data = data

    def shard(self):
        return self.data[:128]


def getter_of_the_package_under_a_side_stream(buffer: Buffer):
    side = torch.cuda.Stream()
    # The package's own getter hands back a view of a buffer made before: no work of the side
    # stream made it.
    with torch.cuda.stream(side):
        part = buffer.shard()
    return torch.relu(part)


class SampledDownload:
    def __init__(self, sampler):
        self.sampler = sampler
        self.copy_stream = torch.cuda.Stream()

    def step(self, logits):
        sampled = self.sampler(logits)
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            sampled_cpu = sampled.to("cpu", non_blocking=True)
        self.copy_stream.synchronize()
        return sampled_cpu


class SampledDownloadRacy:
    def __init__(self, drafter):
        self.drafter = drafter
        self.download_stream = torch.cuda.Stream()

    def step(self, hidden):
        drafts = self.drafter(hidden)
        with torch.cuda.stream(self.download_stream):
            drafts_cpu = drafts.to("cpu", non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'drafts' is read by to on stream 'self.download_stream' while self.drafter on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:18: note: self.drafter writes 'drafts' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:26: note: make stream 'self.download_stream' wait for the current stream before entering it: `self.download_stream.wait_stream(torch.cuda.current_stream())`
        self.download_stream.synchronize()
        return drafts_cpu
