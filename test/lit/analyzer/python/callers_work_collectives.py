# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A collective issued under a side stream runs on its process group's stream, which waits for
# the side stream and for nothing else: the caller's work on the current stream, on the tensor
# the function was given, is not ordered before it unless the side stream waits for the current
# one first (the shape of a gradient reduction moved to its own stream, DeepSpeed #5059's and
# Megatron-LM's). One finding per function and stream: one wait orders all it was given. The
# twins wait first, synchronize the host, or issue on the current stream.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class SideStreamReducerRacy:
    def __init__(self, group):
        self.reduce_stream = torch.cuda.Stream()
        self.group = group

    def reduce(self, flat_grads):
        with torch.cuda.stream(self.reduce_stream):
            dist.all_reduce(flat_grads, group=self.group)
            # CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'flat_grads' is read and written by all_reduce on the process group's stream (group=self.group) while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:5: note: the caller's work writes 'flat_grads' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:29: note: make stream 'self.reduce_stream' wait for the current stream before entering it: `self.reduce_stream.wait_stream(torch.cuda.current_stream())`
            # CHECK-FIXES: self.reduce_stream.wait_stream(torch.cuda.current_stream())
            # CHECK-FIXES-NEXT: with torch.cuda.stream(self.reduce_stream):
        torch.cuda.current_stream().wait_stream(self.reduce_stream)


class SideStreamGatherRacy:
    def __init__(self, group):
        self.gather_stream = torch.cuda.Stream()
        self.group = group

    def gather(self, full, shard):
        with torch.cuda.stream(self.gather_stream):
            work = dist.all_gather_into_tensor(full, shard, group=self.group, async_op=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:54: warning: 'shard' is read by all_gather_into_tensor on the process group's stream (group=self.group) while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:5: note: the caller's work writes 'shard' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:54: note: make stream 'self.gather_stream' wait for the current stream before entering it: `self.gather_stream.wait_stream(torch.cuda.current_stream())`
        work.wait()


class SideStreamReducerWaiting:
    def __init__(self, group):
        self.reduce_stream = torch.cuda.Stream()
        self.group = group

    def reduce(self, flat_grads):
        self.reduce_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduce_stream):
            dist.all_reduce(flat_grads, group=self.group)
        torch.cuda.current_stream().wait_stream(self.reduce_stream)


class SideStreamReducerAfterTheHost:
    def __init__(self, group):
        self.reduce_stream = torch.cuda.Stream()
        self.group = group

    def reduce(self, flat_grads):
        torch.cuda.synchronize()
        with torch.cuda.stream(self.reduce_stream):
            dist.all_reduce(flat_grads, group=self.group)
        torch.cuda.current_stream().wait_stream(self.reduce_stream)


class CurrentStreamReducer:
    def __init__(self, group):
        self.group = group

    def reduce(self, flat_grads):
        # The process group's stream waits for the current stream, the caller's.
        work = dist.all_reduce(flat_grads, group=self.group, async_op=True)
        work.wait()
