# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Streams kept in a dict under constant keys, filled by a setup method (FairScale's FSDP:
# `self._streams["all_gather"] = torch.cuda.Stream()`) or written out in the constructor: each
# key is a stream of its own, so work on two keys is work on two streams. Each racy method has
# an ordered twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class ShardedWrapper:
    def __init__(self, group):
        self.group = group
        self._streams = {}

    def _setup_streams(self):
        if len(self._streams) > 0:
            return
        self._streams["fp32_to_fp16"] = torch.cuda.Stream()
        self._streams["all_gather"] = torch.cuda.Stream()

    def _cast(self):
        with torch.cuda.stream(self._streams["fp32_to_fp16"]):
            self.half.copy_(self.full, non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'self.half' is written by copy_ on stream 'self._streams['fp32_to_fp16']' while all_gather_into_tensor on the process group's stream (group=self.group) may still be reading it; no event or synchronization orders the two streams (the earlier work is left pending when 'gathered_while_cast' returns) [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE+6]]:51: note: all_gather_into_tensor reads 'self.half' on the process group's stream (group=self.group) here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self._streams['fp32_to_fp16']' wait for stream 'self._streams['all_gather']' before this: `torch.cuda.current_stream().wait_stream(self._streams['all_gather'])`

    def gathered_while_cast(self):
        with torch.cuda.stream(self._streams["all_gather"]):
            self._cast()
            dist.all_gather_into_tensor(self.out, self.half, group=self.group)
            # CHECK-MESSAGES: :[[@LINE-1]]:51: warning: 'self.half' is read by all_gather_into_tensor on the process group's stream (group=self.group) while copy_ on stream 'self._streams['fp32_to_fp16']' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-10]]:13: note: copy_ writes 'self.half' on stream 'self._streams['fp32_to_fp16']' here
            # CHECK-MESSAGES: :[[@LINE-4]]:13: note: '_cast' is called here
            # CHECK-MESSAGES: :[[@LINE-4]]:51: note: make stream 'self._streams['all_gather']' wait for stream 'self._streams['fp32_to_fp16']' before this: `torch.cuda.current_stream().wait_stream(self._streams['fp32_to_fp16'])`

    def gathered_after_the_cast(self):
        with torch.cuda.stream(self._streams["all_gather"]):
            self._cast()
            torch.cuda.current_stream().wait_stream(self._streams["fp32_to_fp16"])
            dist.all_gather_into_tensor(self.out, self.half, group=self.group)
        torch.cuda.current_stream().wait_stream(self._streams["all_gather"])


class Prefetcher:
    def __init__(self):
        self.streams = {"copy": torch.cuda.Stream(), "compute": torch.cuda.Stream()}

    def used_while_copied(self, dst, src):
        self.streams["copy"].wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.streams["copy"]):
            dst.copy_(src, non_blocking=True)
        with torch.cuda.stream(self.streams["compute"]):
            dst.mul_(2)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'dst' is read and written by mul_ on stream 'self.streams['compute']' while copy_ on stream 'self.streams['copy']' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:13: note: copy_ writes 'dst' on stream 'self.streams['copy']' here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.streams['compute']' wait for stream 'self.streams['copy']' before this: `torch.cuda.current_stream().wait_stream(self.streams['copy'])`

    def used_after_the_copy(self, dst, src):
        self.streams["copy"].wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.streams["copy"]):
            dst.copy_(src, non_blocking=True)
        with torch.cuda.stream(self.streams["compute"]):
            torch.cuda.current_stream().wait_stream(self.streams["copy"])
            dst.mul_(2)
        torch.cuda.current_stream().wait_stream(self.streams["compute"])
