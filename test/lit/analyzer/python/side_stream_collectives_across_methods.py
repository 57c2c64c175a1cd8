# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A synchronous collective issued under a side stream is done for that stream when the call
# returns, not for the current stream: the method that later reads the gathered buffer on the
# current stream must make it wait for the side stream first (FairScale's FSDP shape), even
# where that method uses no stream itself. The twin waits before returning. (Both make the side
# stream wait for the current one first, for the shard the caller hands in.)
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class FullParamsRacy:
    def __init__(self, numel, group):
        self.gather_stream = torch.cuda.Stream()
        self.full_param = torch.empty(numel, device="cuda")
        self.group = group

    def rebuild_full_params(self, shard):
        self.gather_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.gather_stream):
            dist.all_gather_into_tensor(self.full_param, shard, group=self.group)

    def forward(self, inputs):
        return inputs @ self.full_param
        # CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'self.full_param' is read by @ on the current stream while all_gather_into_tensor on the process group's stream (group=self.group) may still be writing it; no event or synchronization orders the two streams (the earlier work is left pending when 'rebuild_full_params' returns) [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:41: note: all_gather_into_tensor writes 'self.full_param' on the process group's stream (group=self.group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:25: note: make the current stream wait for stream 'self.gather_stream' before this: `torch.cuda.current_stream().wait_stream(self.gather_stream)`
        # CHECK-FIXES: torch.cuda.current_stream().wait_stream(self.gather_stream)
        # CHECK-FIXES-NEXT: return inputs @ self.full_param


class FullParamsWaited:
    def __init__(self, numel, group):
        self.gather_stream = torch.cuda.Stream()
        self.full_param = torch.empty(numel, device="cuda")
        self.group = group

    def rebuild_full_params(self, shard):
        self.gather_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.gather_stream):
            dist.all_gather_into_tensor(self.full_param, shard, group=self.group)
        torch.cuda.current_stream().wait_stream(self.gather_stream)

    def forward(self, inputs):
        return inputs @ self.full_param
