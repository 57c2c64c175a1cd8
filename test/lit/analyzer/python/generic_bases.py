# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A class deriving from a generic one (`TrainPipelineSparseDist[In, Out]`, as TorchRec's
# pipelines do) inherits its methods: the base is the class the subscript names. A copy made
# by the inherited method on the side stream must be waited for before the current stream
# reads it; another class's method of that name is not the one called.
# RUN: %check_streamrace %s %t
from typing import Generic, TypeVar

import torch

In = TypeVar("In")


class CopyingPipeline(Generic[In]):
    def __init__(self):
        self._memcpy_stream = torch.cuda.Stream()

    def _copy_batch_to_gpu(self, batch: In) -> In:
        with torch.cuda.stream(self._memcpy_stream):
            return batch.to("cuda", non_blocking=True)


class CopyingOnTheCurrentStream(Generic[In]):
    def _copy_batch_to_gpu(self, batch: In) -> In:
        return batch.to("cuda", non_blocking=True)


class ForwardBeforeTheCopyLands(CopyingPipeline[In]):
    def progress_racy(self, batch: In, model):
        copied = self._copy_batch_to_gpu(batch)
        output = model(copied)
        # CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'copied' is read by model on the current stream while batch.to on stream 'self._memcpy_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        copied.record_stream(torch.cuda.current_stream())
        return output


class ForwardAfterTheCopyLands(CopyingPipeline[In]):
    def progress(self, batch: In, model):
        copied = self._copy_batch_to_gpu(batch)
        torch.cuda.current_stream().wait_stream(self._memcpy_stream)
        output = model(copied)
        copied.record_stream(torch.cuda.current_stream())
        return output
