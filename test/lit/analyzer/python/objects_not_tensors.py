# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A batch object (TorchRec's Pipelineable, a dataclass of tensors) moved with `.to(device)` is
# taken as a tensor, but a method torch.Tensor does not have is no tensor operation: tracing the
# batch (`to_proxy()`) reads none of its bytes. `copy.copy` of the batch shares its tensors: a
# tensor operation on the copy reads them.
# RUN: %check_streamrace %s %t
import copy

import torch


class BatchLoader:
    def __init__(self, tracer):
        self._tracer = tracer
        self._memcpy_stream = torch.cuda.Stream()

    def read_before_the_copy_lands_racy(self, loader):
        with torch.cuda.stream(self._memcpy_stream):
            batch = next(loader).to("cuda", non_blocking=True)
        total = copy.copy(batch).sum()
        # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'batch' is read by sum on the current stream while next(loader).to on stream 'self._memcpy_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        batch.record_stream(torch.cuda.current_stream())
        return total

    def read_after_the_copy_lands(self, loader):
        with torch.cuda.stream(self._memcpy_stream):
            batch = next(loader).to("cuda", non_blocking=True)
        torch.cuda.current_stream().wait_stream(self._memcpy_stream)
        total = copy.copy(batch).sum()
        batch.record_stream(torch.cuda.current_stream())
        return total

    def traced_while_the_copy_runs(self, loader):
        with torch.cuda.stream(self._memcpy_stream):
            batch = next(loader).to("cuda", non_blocking=True)
        graph = self._tracer.trace(copy.copy(batch).to_proxy(), batch.to_proxy_tuple())
        torch.cuda.current_stream().wait_stream(self._memcpy_stream)
        batch.record_stream(torch.cuda.current_stream())
        return graph, batch
