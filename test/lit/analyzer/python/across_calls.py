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
            # CHECK-MESSAGES: :[[@LINE-1]]:47: warning: 'param.secondary' is read by all_gather_into_tensor on the process group's stream (group=group) while copy_ on the current stream may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'release_racy' returns) [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :16:9: note: copy_ writes 'param.secondary' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:47: note: make stream 'self.allgather_stream' wait for the current stream before entering it: `self.allgather_stream.wait_stream(torch.cuda.current_stream())`
            # CHECK-FIXES: self.allgather_stream.wait_stream(torch.cuda.current_stream())
            # CHECK-FIXES-NEXT: with torch.cuda.stream(self.allgather_stream):
            dist.all_gather_into_tensor(full, param.cached, group=group)
        torch.cuda.current_stream().wait_stream(self.allgather_stream)
