# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A tensor a side stream made and another stream uses needs record_stream before its last name
# is dropped. Code that records it by hand is taken at its word: a record skipped because the
# stream to record is None (no other stream then), a record on a stream that waits later for
# the one that used it or on one the analysis cannot name, and records made in each iteration of
# a loop that fills a dict. Each silent function has a racy twin that records nothing.
# RUN: %check_streamrace %s %t
import torch


def lookup_recorded_when_there_is_a_target(module, requests, source_stream, target_stream):
    with torch.cuda.stream(source_stream):
        kjt = requests.pop(module.name).wait()
    if source_stream is not None:
        torch.cuda.current_stream().wait_stream(source_stream)
    if target_stream is not None:
        kjt.record_stream(target_stream)
    return module.compute_and_output_dist(kjt)


def lookup_recorded_on_a_stream_of_the_caller(module, requests, lookup_streams, i):
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        kjt = requests.pop(module.name).wait()
    torch.cuda.current_stream().wait_stream(side)
    assert isinstance(kjt, torch.Tensor)
    kjt.record_stream(lookup_streams[i])
    return module.compute_and_output_dist(kjt)


class Lookups:
    def __init__(self, device, modules):
        self._data_dist_stream = torch.cuda.Stream() if device.type == "cuda" else None
        self._lookup_stream = torch.cuda.Stream() if device.type == "cuda" else None
        self._modules = modules
        self._module_streams = []
        for _ in modules:
            self._module_streams.append(torch.cuda.Stream() if device.type == "cuda" else None)

    def start_on_each_target(self, requests):
        # The lookup's input is recorded on the target stream, or on none when there is none.
        for module in self._modules:
            with torch.cuda.stream(self._lookup_stream):
                self.out = lookup_recorded_when_there_is_a_target(
                    module, requests, self._data_dist_stream, self._lookup_stream)

    def start_recorded_on_the_caller_stream(self, requests):
        # Recorded on the stream that later waits for the lookup stream (`finish`).
        current_stream = torch.cuda.current_stream()
        with torch.cuda.stream(self._lookup_stream):
            for module in self._modules:
                self.out = lookup_recorded_when_there_is_a_target(
                    module, requests, self._data_dist_stream, current_stream)

    def start_unrecorded_racy(self, module, requests):
        with torch.cuda.stream(self._data_dist_stream):
            kjt = requests.pop(module.name).wait()
        self._lookup_stream.wait_stream(self._data_dist_stream)
        assert isinstance(kjt, torch.Tensor)
        with torch.cuda.stream(self._lookup_stream):
            self.out = module.compute_and_output_dist(kjt)
        # CHECK-MESSAGES: :[[@LINE-2]]:9: warning: 'kjt' is dropped when 'start_unrecorded_racy' returns while compute_and_output_dist reads 'kjt' on stream 'self._lookup_stream' may still use it; the caching allocator can give its block to new work on stream 'self._data_dist_stream' at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-2]]:55: note: compute_and_output_dist reads 'kjt' on stream 'self._lookup_stream' here
        # CHECK-MESSAGES: :[[@LINE-7]]:19: note: 'kjt' is made here, on stream 'self._data_dist_stream'
        # CHECK-MESSAGES: :[[@LINE-5]]:9: note: tell the allocator about that use before it returns: `kjt.record_stream(self._lookup_stream)`
        # CHECK-FIXES: {{^}}            self.out = module.compute_and_output_dist(kjt){{$}}
        # CHECK-FIXES-NEXT: {{^}}        kjt.record_stream(self._lookup_stream){{$}}

    def start_on_streams_of_a_list(self, requests):
        # Each module's stream, None off CUDA: the record is on a stream the analysis cannot
        # name, or skipped with no stream to record.
        for i, module in enumerate(self._modules):
            stream = self._module_streams[i]
            with torch.cuda.stream(stream):
                self.out = lookup_recorded_when_there_is_a_target(
                    module, requests, self._data_dist_stream, stream)

    def finish(self):
        torch.cuda.current_stream().wait_stream(self._lookup_stream)
        return self.out


def prefetch_each(modules, requests, data_dist_stream):
    data_per_module = {}
    for module in modules:
        with torch.cuda.stream(data_dist_stream):
            data = requests.pop(module.name).wait()
        if data_dist_stream is not None:
            torch.cuda.current_stream().wait_stream(data_dist_stream)
            assert isinstance(data, torch.Tensor)
            data.record_stream(torch.cuda.current_stream())
        module.prefetch(data)
        data_per_module[module.name] = data
    return data_per_module


def prefetch_each_unrecorded(modules, requests, data_dist_stream):
    data_per_module = {}
    for module in modules:
        with torch.cuda.stream(data_dist_stream):
            data = requests.pop(module.name).wait()
        if data_dist_stream is not None:
            torch.cuda.current_stream().wait_stream(data_dist_stream)
            assert isinstance(data, torch.Tensor)
        module.prefetch(data)
        data_per_module[module.name] = data
    return data_per_module
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'data' was allocated on stream 'self._data_dist_stream' and is handed to stream 'self._prefetch_stream' without record_stream; once it is dropped, the caching allocator can give its block to new work on stream 'self._data_dist_stream' while stream 'self._prefetch_stream' may still use it [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE+15]]:31: note: 'prefetch_each_unrecorded' is called here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: record the use on stream 'self._prefetch_stream' before handing it over: `data.record_stream(torch.cuda.current_stream())`


class Prefetcher:
    def __init__(self, device):
        self._data_dist_stream = torch.cuda.Stream() if device.type == "cuda" else None
        self._prefetch_stream = torch.cuda.Stream() if device.type == "cuda" else None

    def prefetch(self, modules, requests):
        with torch.cuda.stream(self._prefetch_stream):
            self.recorded = prefetch_each(modules, requests, self._data_dist_stream)

    def prefetch_racy(self, modules, requests):
        with torch.cuda.stream(self._prefetch_stream):
            self.unrecorded = prefetch_each_unrecorded(modules, requests, self._data_dist_stream)


class Receiver:
    """A stream parameter replaced by the current stream when None is a stream on every path
    (vLLM's NCCL engine): the host's synchronize of it orders the receive before the store."""

    def __init__(self, lib, pool):
        self.lib = lib
        self.pool = pool
        self.recv_stream = torch.cuda.Stream()

    def receive(self, tensor, stream=None):
        if stream is None:
            stream = torch.cuda.current_stream()
        with torch.cuda.stream(stream):
            # A library's receive, given the stream's handle (no tensor, for all its method
            # shares a collective's name).
            self.lib.recv(tensor.data_ptr(), tensor.numel(), stream.cuda_stream)
        stream.synchronize()

    def put(self, shape, device):
        with torch.cuda.stream(self.recv_stream):
            tensor = torch.empty(shape, device=device)
        self.receive(tensor, self.recv_stream)
        tensor.record_stream(torch.cuda.current_stream())
        return self.pool.store_tensor(tensor)


def receive_through_the_engine(engine, comm, shape, kv_cache):
    # The engine's stream is a stream wherever the package stores it: handed to `receive`, it
    # is not None there, and `receive` synchronizes it.
    with torch.cuda.stream(engine.recv_stream):
        tensor = torch.empty(shape, device=kv_cache.device)
    engine.receive(tensor, engine.recv_stream)
    tensor.record_stream(torch.cuda.current_stream())
    kv_cache.copy_(tensor)
