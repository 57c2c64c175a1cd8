# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A comprehension's variables are its own (Python 3): after `[buffer.numel() for buffer in
# tensors]`, `buffer` is the function's parameter again, so the all-reduce on it and the
# multiplication after meet. The racy method has an ordered twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class Reducer:
    def __init__(self):
        self.side = torch.cuda.Stream()

    def scale_after_reduce_racy(self, buffer, tensors):
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            dist.all_reduce(buffer)
        sizes = [buffer.numel() for buffer in tensors]
        buffer.mul_(1.0 / len(sizes))
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'buffer' is read and written by mul_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-4]]:29: note: all_reduce reads and writes 'buffer' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: make the current stream wait for stream 'self.side' before this: `torch.cuda.current_stream().wait_stream(self.side)`

    def scale_after_reduce_waited(self, buffer, tensors):
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            dist.all_reduce(buffer)
        sizes = [buffer.numel() for buffer in tensors]
        torch.cuda.current_stream().wait_stream(self.side)
        buffer.mul_(1.0 / len(sizes))
