# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The process group keeps the tensors a collective is given until its work rejoins the stream
# that called it (PyTorch stashes them until the handle is waited for, or records its stream on
# them): dropping the last name of one is safe when it was made on that stream, or recorded on
# it. Made on another stream, its block goes back to that stream's pool while the collective may
# still use it. Freeing the storage itself is never covered. Each racy function has a twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist
from torch._utils import _flatten_dense_tensors


def casts_rebound_while_gathered(params, outputs, group):
    works = []
    for param, output in zip(params, outputs):
        shard = param.to(torch.bfloat16)
        works.append(dist.all_gather_into_tensor(output, shard, group=group, async_op=True))
    return works


def staging_deleted_while_reduced(grad, output, group):
    staged = grad.to(torch.float32)
    work = dist.reduce_scatter_tensor(output, staged, group=group, async_op=True)
    del staged
    return work


def staging_storage_freed_while_reduced_racy(grad, output, group):
    staged = grad.to(torch.float32)
    work = dist.reduce_scatter_tensor(output, staged, group=group, async_op=True)
    staged.untyped_storage().resize_(0)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the storage of 'staged' is released while reduce_scatter_tensor reads 'staged' on the process group's stream (group=group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE-3]]:47: note: reduce_scatter_tensor reads 'staged' on the process group's stream (group=group) here
    # CHECK-MESSAGES: :[[@LINE-5]]:14: note: 'staged' is made here, on the current stream
    # CHECK-MESSAGES: :[[@LINE-4]]:5: note: wait for the collective's work handle (`work.wait()`) before releasing the storage
    return work


class BucketReducer:
    def __init__(self):
        self.comm = torch.cuda.Stream()

    # The next iteration's rebinding drops the flat buffer, and so does the return: both give
    # its block back to the current stream's pool while the all-reduce the comm stream called
    # may still use it (ColossalAI's low-level ZeRO records it on the comm stream).
    def reduce_under_the_comm_stream_racy(self, buckets):
        for bucket in buckets:
            flat = _flatten_dense_tensors(bucket)
            flat.div_(2)
            self.comm.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.comm):
                dist.all_reduce(flat)
        # CHECK-MESSAGES: :[[@LINE-6]]:9: warning: 'flat' is dropped when 'reduce_under_the_comm_stream_racy' returns while all_reduce reads and writes 'flat' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-2]]:33: note: all_reduce reads and writes 'flat' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-7]]:20: note: 'flat' is made here, on the current stream
        # CHECK-MESSAGES: :[[@LINE-4]]:33: note: tell the allocator about this use: `flat.record_stream(self.comm)`
        # CHECK-MESSAGES: :[[@LINE-9]]:20: warning: 'flat' is dropped here while all_reduce reads and writes 'flat' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-6]]:33: note: all_reduce reads and writes 'flat' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-11]]:20: note: 'flat' is made here, on the current stream
        # CHECK-MESSAGES: :[[@LINE-8]]:33: note: tell the allocator about this use: `flat.record_stream(self.comm)`
        # CHECK-FIXES: {{^}}                flat.record_stream(self.comm){{$}}
        # CHECK-FIXES-NEXT: {{^}}                dist.all_reduce(flat){{$}}

    def reduce_under_the_comm_stream_recorded(self, buckets):
        for bucket in buckets:
            flat = _flatten_dense_tensors(bucket)
            flat.div_(2)
            flat.record_stream(self.comm)
            self.comm.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.comm):
                dist.all_reduce(flat)

    def reduce_under_the_comm_stream_then_waited_for(self, buckets):
        for bucket in buckets:
            flat = _flatten_dense_tensors(bucket)
            flat.div_(2)
            self.comm.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.comm):
                dist.all_reduce(flat)
            torch.cuda.current_stream().wait_stream(self.comm)
