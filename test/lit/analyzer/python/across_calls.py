# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The ZeRO++ hpZ shape (DeepSpeed #5059, fixed by PR #5216): one method leaves a copy into an
# attribute pending on the current stream when it returns; another method, called later by the
# engine, reads that attribute on the all-gather stream, and nothing in the program orders the
# all-gather stream after the current one. The fixed twin synchronizes before returning.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class SecondaryPartitions:
    def __init__(self):
        self.allgather_stream = torch.cuda.Stream()

    def release_racy(self, param, shard):
        param.secondary.copy_(shard)

    def release_fixed(self, param, shard):
        param.cached.copy_(shard)
        torch.cuda.current_stream().synchronize()

    def fetch(self, param, full, group):
        with torch.cuda.stream(self.allgather_stream):
            dist.all_gather_into_tensor(full, param.secondary, group=group)
            # CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'full' is written by all_gather_into_tensor on the process group's stream (group=group) while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:5: note: the caller's work writes 'full' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:41: note: make stream 'self.allgather_stream' wait for the current stream before entering it: `self.allgather_stream.wait_stream(torch.cuda.current_stream())`
            # (The gathered buffer the engine hands in: its earlier use may not be done either.)
            # CHECK-MESSAGES: :[[@LINE-5]]:47: warning: 'param.secondary' is read by all_gather_into_tensor on the process group's stream (group=group) while copy_ on the current stream may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'release_racy' returns) [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-14]]:9: note: copy_ writes 'param.secondary' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-7]]:47: note: make stream 'self.allgather_stream' wait for the current stream before entering it: `self.allgather_stream.wait_stream(torch.cuda.current_stream())`
            # CHECK-FIXES: self.allgather_stream.wait_stream(torch.cuda.current_stream())
            # CHECK-FIXES-NEXT: with torch.cuda.stream(self.allgather_stream):
            dist.all_gather_into_tensor(full, param.cached, group=group)
        torch.cuda.current_stream().wait_stream(self.allgather_stream)


# Attributes of one name on objects held in attributes of two names are two tensors: moving a
# parameter copies into its local shard, which a gradient hook does not touch when it
# accumulates into the gradient's local shard, and does touch when it updates the parameter's.
class ShardedParameter:
    def __init__(self):
        self.hook_stream = torch.cuda.Stream()

    def reset_local_shard(self, padded):
        padded.copy_(self.sharded_param.local_shard)
        # CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'self.sharded_param.local_shard' is read by copy_ on the current stream while add_ on stream 'self.hook_stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'update_parameter_racy' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+14]]:17: note: add_ reads and writes 'params[*].sharded_param.local_shard' on stream 'self.hook_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:22: note: make the current stream wait for stream 'self.hook_stream' before this: `torch.cuda.current_stream().wait_stream(self.hook_stream)`

    def accumulate_gradient(self, params, reduced):
        with torch.cuda.stream(self.hook_stream):
            for param in params:
                param.sharded_param.grad.local_shard.add_(reduced)
                # CHECK-MESSAGES: :[[@LINE-1]]:59: warning: 'reduced' is read by add_ on stream 'self.hook_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-5]]:5: note: the caller's work writes 'reduced' on the current stream here
                # CHECK-MESSAGES: :[[@LINE-3]]:59: note: make stream 'self.hook_stream' wait for the current stream before entering it: `self.hook_stream.wait_stream(torch.cuda.current_stream())`

    def update_parameter_racy(self, params, update):
        with torch.cuda.stream(self.hook_stream):
            for param in params:
                param.sharded_param.local_shard.add_(update)
                # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'params[*].sharded_param.local_shard' is read and written by add_ on stream 'self.hook_stream' while copy_ on the current stream may still be reading it; no event or synchronization orders the two streams (the earlier work is left pending when 'reset_local_shard' returns) [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-18]]:22: note: copy_ reads 'self.sharded_param.local_shard' on the current stream here
                # CHECK-MESSAGES: :[[@LINE-3]]:17: note: make stream 'self.hook_stream' wait for the current stream before entering it: `self.hook_stream.wait_stream(torch.cuda.current_stream())`
                # CHECK-MESSAGES: :[[@LINE-4]]:54: warning: 'update' is read by add_ on stream 'self.hook_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-8]]:5: note: the caller's work writes 'update' on the current stream here
                # CHECK-MESSAGES: :[[@LINE-6]]:54: note: make stream 'self.hook_stream' wait for the current stream before entering it: `self.hook_stream.wait_stream(torch.cuda.current_stream())`


# A gradient (held in `.grad`) and an object a variable of another name holds are two objects.
class GradientHook:
    def __init__(self):
        self.hook_stream = torch.cuda.Stream()

    def load_parameter(self, new_param, padded):
        padded.copy_(new_param.local_tensor)
        # CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'new_param.local_tensor' is read by copy_ on the current stream while mul_ on stream 'self.hook_stream' may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'scale_parameters_racy' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+14]]:17: note: mul_ reads and writes 'params[*].local_tensor' on stream 'self.hook_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:22: note: make the current stream wait for stream 'self.hook_stream' before this: `torch.cuda.current_stream().wait_stream(self.hook_stream)`

    def accumulate_gradient(self, params, reduced):
        with torch.cuda.stream(self.hook_stream):
            for param in params:
                param.grad.local_tensor.add_(reduced)
                # CHECK-MESSAGES: :[[@LINE-1]]:46: warning: 'reduced' is read by add_ on stream 'self.hook_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-5]]:5: note: the caller's work writes 'reduced' on the current stream here
                # CHECK-MESSAGES: :[[@LINE-3]]:46: note: make stream 'self.hook_stream' wait for the current stream before entering it: `self.hook_stream.wait_stream(torch.cuda.current_stream())`

    def scale_parameters_racy(self, params, scale):
        with torch.cuda.stream(self.hook_stream):
            for param in params:
                param.local_tensor.mul_(scale)
                # CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'params[*].local_tensor' is read and written by mul_ on stream 'self.hook_stream' while copy_ on the current stream may still be reading it; no event or synchronization orders the two streams (the earlier work is left pending when 'load_parameter' returns) [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-18]]:22: note: copy_ reads 'new_param.local_tensor' on the current stream here
                # CHECK-MESSAGES: :[[@LINE-3]]:17: note: make stream 'self.hook_stream' wait for the current stream before entering it: `self.hook_stream.wait_stream(torch.cuda.current_stream())`
                # CHECK-MESSAGES: :[[@LINE-4]]:41: warning: 'scale' is read by mul_ on stream 'self.hook_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE-8]]:5: note: the caller's work writes 'scale' on the current stream here
                # CHECK-MESSAGES: :[[@LINE-6]]:41: note: make stream 'self.hook_stream' wait for the current stream before entering it: `self.hook_stream.wait_stream(torch.cuda.current_stream())`
