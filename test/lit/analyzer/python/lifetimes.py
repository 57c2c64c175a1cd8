# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The caching allocator gives a freed block to new work on the stream it was allocated on at
# once: storage released while another stream may still use it, and a tensor handed from a side
# stream to the current one without record_stream. Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist
from torch.distributed.utils import _alloc_storage, _free_storage


def output_freed_while_it_is_sent(output, peer):
    request = dist.isend(output, dst=peer)
    output.data = torch.empty((1,), device=output.device, dtype=output.dtype)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the storage of 'output' is released while isend reads 'output' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE-3]]:26: note: isend reads 'output' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: wait for the collective's work handle (`work.wait()`) before releasing the storage
    return request


def output_freed_after_the_send(output, peer):
    request = dist.isend(output, dst=peer)
    request.wait()
    output.data = torch.empty((1,), device=output.device, dtype=output.dtype)


def shard_storage_freed_while_gathered(shard, full, group):
    work = dist.all_gather_into_tensor(full, shard, group=group, async_op=True)
    shard.untyped_storage().resize_(0)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the storage of 'shard' is released while all_gather_into_tensor reads 'shard' on the process group's stream (group=group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE-3]]:46: note: all_gather_into_tensor reads 'shard' on the process group's stream (group=group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: wait for the collective's work handle (`work.wait()`) before releasing the storage
    return work


def shard_storage_freed_after_the_gather(shard, full, group):
    work = dist.all_gather_into_tensor(full, shard, group=group, async_op=True)
    work.wait()
    shard.untyped_storage().resize_(0)


# A helper that releases what it is given (Megatron-LM's deallocate_output_tensor) does no stream
# work of its own, but its callers' pending work on the tensor meets the release: it is followed.
def deallocate(out):
    out.data = torch.empty((1,), device=out.device, dtype=out.dtype)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the storage of 'output' is released while isend reads 'output' on the process group's stream (the default group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE+7]]:5: note: 'deallocate' is called here
    # CHECK-MESSAGES: :[[@LINE+5]]:26: note: isend reads 'output' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-4]]:5: note: wait for the collective's work handle (`work.wait()`) before releasing the storage


def output_deallocated_by_a_helper_while_it_is_sent(output, peer):
    request = dist.isend(output, dst=peer)
    deallocate(output)
    request.wait()


def output_deallocated_by_a_helper_after_the_send(output, peer):
    request = dist.isend(output, dst=peer)
    request.wait()
    deallocate(output)


class Prefetcher:
    """A batch made on a side stream and handed to the current stream (apex's imagenet
    data_prefetcher): record_stream keeps its block from the side stream's next batches."""

    def __init__(self, loader):
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        batch = next(self.loader)
        with torch.cuda.stream(self.stream):
            self.next_input = batch.cuda(non_blocking=True)

    def next_without_record_stream(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        batch = self.next_input
        self.preload()
        return batch
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'self.next_input' was allocated on stream 'self.stream' and is handed to the current stream without record_stream; once it is dropped, the caching allocator can give its block to new work on stream 'self.stream' while the current stream may still use it [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-2]]:16: note: record the use on the current stream before handing it over: `batch.record_stream(torch.cuda.current_stream())`
        # CHECK-FIXES: batch.record_stream(torch.cuda.current_stream())
        # CHECK-FIXES-NEXT: return batch

    def next_with_record_stream(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        batch = self.next_input
        batch.record_stream(torch.cuda.current_stream())
        self.preload()
        return batch


# FSDP's `_alloc_storage` gives a tensor a new block from the pool of the stream current where
# it is called: work on that stream needs no record_stream before the block is freed.
class LowPrecisionShard:
    def __init__(self):
        self.pre_unshard_stream = torch.cuda.Stream()

    def use_and_free_on_the_allocating_stream(self, shard, size):
        with torch.cuda.stream(self.pre_unshard_stream):
            _alloc_storage(self.low_precision, size)
            self.low_precision.copy_(shard)
        _free_storage(self.low_precision)

    def use_on_a_stream_that_did_not_allocate_racy(self, shard, size):
        _alloc_storage(self.low_precision, size)
        with torch.cuda.stream(self.pre_unshard_stream):
            self.low_precision.copy_(shard)
        _free_storage(self.low_precision)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: the storage of 'self.low_precision' is released while copy_ writes 'self.low_precision' on stream 'self.pre_unshard_stream' may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-3]]:13: note: copy_ writes 'self.low_precision' on stream 'self.pre_unshard_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: tell the allocator about that use before this: `self.low_precision.record_stream(self.pre_unshard_stream)`
        # CHECK-FIXES: self.low_precision.record_stream(self.pre_unshard_stream)
        # CHECK-FIXES-NEXT: _free_storage(self.low_precision)


# A tensor a function makes and keeps in a local only is dropped when the function returns: a
# side stream's pending use of it needs a record_stream (or a wait of the stream that made it).
class SideAccumulator:
    def __init__(self, size):
        self.side = torch.cuda.Stream()
        self.total = torch.zeros(size, device="cuda")

    def accumulate_dropped_at_the_end_racy(self, grad):
        scaled = torch.mul(grad, 0.5)
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            self.total.add_(scaled)
        # CHECK-MESSAGES: :[[@LINE-2]]:9: warning: 'scaled' is dropped when 'accumulate_dropped_at_the_end_racy' returns while add_ reads 'scaled' on stream 'self.side' may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-2]]:29: note: add_ reads 'scaled' on stream 'self.side' here
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: tell the allocator about that use before it returns: `scaled.record_stream(self.side)`
        # CHECK-FIXES: {{^}}            self.total.add_(scaled){{$}}
        # CHECK-FIXES-NEXT: {{^}}        scaled.record_stream(self.side){{$}}

    def accumulate_recorded(self, grad):
        scaled = torch.mul(grad, 0.5)
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            self.total.add_(scaled)
        scaled.record_stream(self.side)

    def accumulate_then_waited_for(self, grad):
        scaled = torch.mul(grad, 0.5)
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            self.total.add_(scaled)
        torch.cuda.current_stream().wait_stream(self.side)

    def accumulate_dropped_at_a_return_racy(self, grad, skip_norm):
        scaled = torch.mul(grad, 0.5)
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            self.total.add_(scaled)
        if skip_norm:
            return None
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'scaled' is dropped when 'accumulate_dropped_at_a_return_racy' returns while add_ reads 'scaled' on stream 'self.side' may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
            # CHECK-MESSAGES: :[[@LINE-4]]:29: note: add_ reads 'scaled' on stream 'self.side' here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: tell the allocator about that use before it returns: `scaled.record_stream(self.side)`
            # CHECK-FIXES: {{^}}        if skip_norm:{{$}}
            # CHECK-FIXES-NEXT: {{^}}            scaled.record_stream(self.side){{$}}
            # CHECK-FIXES-NEXT: {{^}}            return None{{$}}
        torch.cuda.current_stream().wait_stream(self.side)
        return scaled.norm()

    def scaling_hook_keeps_its_factor(self, param):
        factor = torch.full_like(param, 0.5)
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            self.total.add_(factor)

        def scale(grad):
            return grad * factor

        param.register_hook(scale)


def reduce_a_copy(grad, group):
    # The process group records its stream on what a collective is given.
    copy = grad.clone()
    return dist.all_reduce(copy, group=group, async_op=True)


# A tensor a method makes and keeps in an attribute only is released when the attribute is given
# another value (None too) or deleted.
class StagedUpload:
    def __init__(self):
        self.upload_stream = torch.cuda.Stream()
        self.device_copy = None

    def upload_replaced_racy(self, host, target):
        self.device_copy = torch.empty_like(target)
        self.upload_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.upload_stream):
            self.device_copy.copy_(host, non_blocking=True)
            target.add_(self.device_copy)
        self.device_copy = None
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'self.device_copy' is dropped here while copy_ writes 'self.device_copy' on stream 'self.upload_stream' may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-4]]:13: note: copy_ writes 'self.device_copy' on stream 'self.upload_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: tell the allocator about that use before this: `self.device_copy.record_stream(self.upload_stream)`
        # CHECK-FIXES: {{^}}        self.device_copy.record_stream(self.upload_stream){{$}}
        # CHECK-FIXES-NEXT: {{^}}        self.device_copy = None{{$}}

    def upload_deleted_after_recording(self, host, target):
        self.device_copy = torch.empty_like(target)
        self.upload_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.upload_stream):
            self.device_copy.copy_(host, non_blocking=True)
            target.add_(self.device_copy)
        self.device_copy.record_stream(self.upload_stream)
        del self.device_copy

    def upload_kept_in_a_list(self, host, target, uploads):
        # The list keeps the tensor past the attribute's next value.
        self.device_copy = torch.empty_like(target)
        self.upload_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.upload_stream):
            self.device_copy.copy_(host, non_blocking=True)
            target.add_(self.device_copy)
        kept = self.device_copy
        uploads.append(kept)
        self.device_copy = None


# The whole loop of apex's imagenet prefetcher: __init__ has two ways out (the loader may be
# empty), each batch is made anew on the side stream, and the loop drops the batch of the last
# step when it takes the next one. With record_stream nothing races: the current stream's reads
# of a batch are of that batch only, not of the one the side stream is filling.
class LoopPrefetcher:
    def __init__(self, loader, mean):
        self.batches = iter(loader)
        self.stream = torch.cuda.Stream()
        self.stream.wait_stream(torch.cuda.current_stream())
        self.offset = mean
        self.preload()

    def preload(self):
        try:
            self.next_batch = next(self.batches)
        except StopIteration:
            self.next_batch = None
            return
        with torch.cuda.stream(self.stream):
            self.next_batch = self.next_batch.cuda(non_blocking=True)
            self.next_batch = self.next_batch.float()
            self.next_batch = self.next_batch.sub_(self.offset)

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        batch = self.next_batch
        if batch is not None:
            batch.record_stream(torch.cuda.current_stream())
        self.preload()
        return batch


def train_with_recorded_batches(loader, model, mean):
    prefetcher = LoopPrefetcher(loader, mean)
    batch = prefetcher.next()
    while batch is not None:
        model(batch)
        batch = prefetcher.next()


# Without record_stream, the batch dropped by the loop goes back to the side stream's pool while
# the model's read of it may still be pending: the side stream's next batch may take its block.
class UnrecordedLoopPrefetcher:
    def __init__(self, loader, mean):
        self.batches = iter(loader)
        self.stream = torch.cuda.Stream()
        self.stream.wait_stream(torch.cuda.current_stream())
        self.offset = mean
        self.preload()

    def preload(self):
        try:
            self.next_batch = next(self.batches)
        except StopIteration:
            self.next_batch = None
            return
        with torch.cuda.stream(self.stream):
            self.next_batch = self.next_batch.cuda(non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:31: warning: '<UnrecordedLoopPrefetcher object>.next_batch' is made on stream 'self.stream': the caching allocator may give it the block of '<UnrecordedLoopPrefetcher object>.next_batch', handed to the current stream without record_stream and no longer held, while model on the current stream may still be reading it [streamrace-free-while-pending]
            # CHECK-MESSAGES: :[[@LINE+23]]:17: note: 'next' is called here
            # CHECK-MESSAGES: :[[@LINE+10]]:9: note: 'preload' is called here
            # CHECK-MESSAGES: :[[@LINE+20]]:15: note: model reads '<UnrecordedLoopPrefetcher object>.next_batch' on the current stream here
            # CHECK-MESSAGES: :[[@LINE+17]]:13: note: 'next' is called here
            # CHECK-MESSAGES: :[[@LINE+8]]:16: note: '<UnrecordedLoopPrefetcher object>.next_batch' is handed to the current stream here: record that use (`record_stream`) before handing it over
            self.next_batch = self.next_batch.float()
            self.next_batch = self.next_batch.sub_(self.offset)

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        batch = self.next_batch
        self.preload()
        return batch
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: '<UnrecordedLoopPrefetcher object>.next_batch' was allocated on stream 'self.stream' and is handed to the current stream without record_stream; once it is dropped, the caching allocator can give its block to new work on stream 'self.stream' while the current stream may still use it [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE+6]]:13: note: 'next' is called here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: record the use on the current stream before handing it over: `batch.record_stream(torch.cuda.current_stream())`


def train_with_unrecorded_batches(loader, model, mean):
    prefetcher = UnrecordedLoopPrefetcher(loader, mean)
    batch = prefetcher.next()
    while batch is not None:
        model(batch)
        batch = prefetcher.next()


# A gradient moved into a bucket on the bucket's stream, then pointed at its slot there
# (DeepSpeed ZeRO-3's `param.grad.data = new_grad_tensor`): its old storage is released while
# the copy out of it may still run. A view of its own bytes releases nothing.
class GradientBucket:
    def __init__(self, size):
        self.bucket_stream = torch.cuda.Stream()
        self.bucket = torch.empty(size, device="cuda")

    def move_into_bucket_racy(self, numel, offset):
        grad = torch.randn(numel, device="cuda")
        self.bucket_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.bucket_stream):
            slot = self.bucket.narrow(0, offset, numel)
            slot.copy_(grad, non_blocking=True)
            grad.data = slot
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the storage of 'grad' is released while copy_ reads 'grad' on stream 'self.bucket_stream' may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
            # CHECK-MESSAGES: :[[@LINE-3]]:24: note: copy_ reads 'grad' on stream 'self.bucket_stream' here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: tell the allocator about that use before this: `grad.record_stream(torch.cuda.current_stream())`
        return grad

    def move_into_bucket_recorded(self, numel, offset):
        grad = torch.randn(numel, device="cuda")
        self.bucket_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.bucket_stream):
            slot = self.bucket.narrow(0, offset, numel)
            slot.copy_(grad, non_blocking=True)
            grad.record_stream(torch.cuda.current_stream())
            grad.data = slot
        return grad

    def flatten_in_place(self, numel):
        grad = torch.randn(numel, device="cuda")
        self.bucket_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.bucket_stream):
            self.bucket.narrow(0, 0, numel).copy_(grad, non_blocking=True)
            grad.data = grad.view(-1)
        return grad

    def gradient_replaced_while_the_parameter_is_read(self, param, numel):
        # The parameter's bytes are not its gradient's: releasing the gradient's meets nothing.
        self.bucket_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.bucket_stream):
            self.bucket.narrow(0, 0, numel).copy_(param.view(-1), non_blocking=True)
        param.grad.data = self.bucket.narrow(0, 0, numel)


# Releasing a tensor's storage leaves the tensors its attributes hold alive (FairScale keeps a
# parameter's shards in attributes of the parameter): a side stream still reading a shard meets
# no release of the parameter's own bytes. Reading those bytes does.
def parameter_freed_while_its_bytes_are_gathered(param, full, group):
    work = dist.all_gather_into_tensor(full, param, group=group, async_op=True)
    param.data = torch.empty(0, device=param.device)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the storage of 'param' is released while all_gather_into_tensor reads 'param' on the process group's stream (group=group) may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
    # CHECK-MESSAGES: :[[@LINE-3]]:46: note: all_gather_into_tensor reads 'param' on the process group's stream (group=group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: wait for the collective's work handle (`work.wait()`) before releasing the storage
    return work


def parameter_freed_while_its_shard_is_gathered(param, full, group):
    work = dist.all_gather_into_tensor(full, param._shard, group=group, async_op=True)
    param.data = torch.empty(0, device=param.device)
    return work


# A storage resized to nothing has no block: what its making left (a block another stream may
# still have been using) is gone with it. Resized back under a side stream, it takes a block of
# that stream's pool, which the stream may use at once, and which goes back to that pool when
# the tensor is dropped (FairScale's `free_storage_` and `alloc_storage_`).
class RegrownShard:
    def __init__(self, numel):
        self.shard_stream = torch.cuda.Stream()
        self.numel = numel

    def used_on_a_side_stream_racy(self):
        self.shard = torch.empty(self.numel, device="cuda")
        with torch.cuda.stream(self.shard_stream):
            self.shard.mul_(2)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'self.shard' is read and written by mul_ on stream 'self.shard_stream', which has not waited for the current stream since 'self.shard' was allocated there (torch.empty): its block may still be in use by earlier work [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:22: note: torch.empty (allocation) writes 'self.shard' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.shard_stream' wait for the current stream before entering it: `self.shard_stream.wait_stream(torch.cuda.current_stream())`

    def regrown_on_a_side_stream(self):
        self.shard = torch.empty(self.numel, device="cuda")
        self.shard.untyped_storage().resize_(0)
        with torch.cuda.stream(self.shard_stream):
            self.shard.untyped_storage().resize_(4 * self.numel)
            self.shard.mul_(2)

    def dropped_while_the_side_stream_uses_it_racy(self):
        self.shard = torch.empty(self.numel, device="cuda")
        self.shard_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.shard_stream):
            self.shard.mul_(2)
        self.shard = None
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'self.shard' is dropped here while mul_ reads and writes 'self.shard' on stream 'self.shard_stream' may still use it; the caching allocator can give its block to new work on the current stream at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-3]]:13: note: mul_ reads and writes 'self.shard' on stream 'self.shard_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: tell the allocator about that use before this: `self.shard.record_stream(self.shard_stream)`

    def regrown_and_dropped_on_the_side_stream(self):
        self.shard = torch.empty(self.numel, device="cuda")
        self.shard.untyped_storage().resize_(0)
        with torch.cuda.stream(self.shard_stream):
            self.shard.untyped_storage().resize_(4 * self.numel)
            self.shard.mul_(2)
        self.shard = None


# A tensor a side stream made and the current stream reads after waiting for that stream is
# handed over by the read itself, as by a return: once the object no longer holds it, the next
# tensor the side stream makes may take its block while the read may still be pending.
class StepPrefetcher:
    def __init__(self, model):
        self.model = model
        self.copy_stream = torch.cuda.Stream()
        self.batch = None

    def copy_in(self, host):
        with torch.cuda.stream(self.copy_stream):
            self.batch = host.to("cuda", non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'self.batch' is made on stream 'self.copy_stream': the caching allocator may give it the block of 'self.batch', handed to the current stream without record_stream and no longer held, while model on the current stream may still be reading it [streamrace-free-while-pending]
            # CHECK-MESSAGES: :[[@LINE+9]]:9: note: 'copy_in' is called here
            # CHECK-MESSAGES: :[[@LINE+6]]:26: note: model reads 'self.batch' on the current stream here
            # CHECK-MESSAGES: :[[@LINE+5]]:26: note: 'self.batch' is handed to the current stream here: record that use (`record_stream`) before handing it over

    def step_unrecorded(self, loader):
        self.copy_in(next(loader))
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        out = self.model(self.batch)
        self.batch = None
        self.copy_in(next(loader))
        return out

    def step_recorded(self, loader):
        self.copy_in(next(loader))
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        self.batch.record_stream(torch.cuda.current_stream())
        out = self.model(self.batch)
        self.batch = None
        self.copy_in(next(loader))
        return out

    def step_recorded_after_the_use(self, loader):
        self.copy_in(next(loader))
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        out = self.model(self.batch)
        self.batch.record_stream(torch.cuda.current_stream())
        self.batch = None
        self.copy_in(next(loader))
        return out

    def step_copy_stream_waits(self, loader):
        self.copy_in(next(loader))
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        out = self.model(self.batch)
        self.batch = None
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        self.copy_in(next(loader))
        return out

    def slices_of_a_kept_sum(self, grads, split):
        # Read through slices, the sum is still held whole when the next copy is made.
        with torch.cuda.stream(self.copy_stream):
            total = torch.zeros(8, device="cuda")
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        total[:split].add_(grads[0])
        total[split:].add_(grads[1])
        self.copy_in(grads[2])
        self.total = total


# apex's prefetcher as its fix left it: each call records the pair it hands over, and the loop
# joins the pair made before it with the pairs made in it, one name for all of them.
class RecordedPairPrefetcher:
    def __init__(self, loader):
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        try:
            self.next_input, self.next_target = next(self.loader)
        except StopIteration:
            self.next_input = None
            self.next_target = None
            return
        with torch.cuda.stream(self.stream):
            self.next_input = self.next_input.cuda(non_blocking=True)
            self.next_target = self.next_target.cuda(non_blocking=True)

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        input = self.next_input
        target = self.next_target
        input.record_stream(torch.cuda.current_stream())
        target.record_stream(torch.cuda.current_stream())
        self.preload()
        return input, target


def train_on_recorded_pairs(loader, model, criterion, optimizer, profile, log):
    prefetcher = RecordedPairPrefetcher(loader)
    input, target = prefetcher.next()
    while input is not None:
        if profile:
            torch.cuda.nvtx.range_push("forward")
        output = model(input)
        if profile:
            torch.cuda.nvtx.range_pop()
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if log:
            print(loss.item())
        input, target = prefetcher.next()


# A tensor stored in a dict the function returns is held by the dict: neither the next
# iteration's rebinding nor the return frees it.
class ScaledPerName:
    def __init__(self):
        self.side = torch.cuda.Stream()
        self.consumer = torch.cuda.Stream()

    def scaled_and_dropped_racy(self, inputs, names):
        for name in names:
            with torch.cuda.stream(self.side):
                scaled = torch.mul(inputs[name], 2)
            self.consumer.wait_stream(self.side)
            with torch.cuda.stream(self.consumer):
                torch.add(scaled, 1)
        # CHECK-MESSAGES: :[[@LINE-4]]:26: warning: 'scaled' is dropped here while torch.add reads 'scaled' on stream 'self.consumer' may still use it; the caching allocator can give its block to new work on stream 'self.side' at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-2]]:27: note: torch.add reads 'scaled' on stream 'self.consumer' here
        # CHECK-MESSAGES: :[[@LINE-6]]:26: note: 'scaled' is made here, on stream 'self.side'
        # CHECK-MESSAGES: :[[@LINE-7]]:26: note: tell the allocator about that use before this: `scaled.record_stream(self.consumer)`
        # CHECK-FIXES: {{^}}                scaled.record_stream(self.consumer){{$}}
        # CHECK-MESSAGES: :[[@LINE+5]]:9: warning: 'scaled' is dropped when 'scaled_and_dropped_racy' returns while torch.add reads 'scaled' on stream 'self.consumer' may still use it; the caching allocator can give its block to new work on stream 'self.side' at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-7]]:27: note: torch.add reads 'scaled' on stream 'self.consumer' here
        # CHECK-MESSAGES: :[[@LINE-11]]:26: note: 'scaled' is made here, on stream 'self.side'
        # CHECK-MESSAGES: :[[@LINE+2]]:9: note: tell the allocator about that use before it returns: `scaled.record_stream(self.consumer)`
        # CHECK-FIXES: {{^}}        scaled.record_stream(self.consumer){{$}}
        return None

    def scaled_and_kept_in_the_returned_dict(self, inputs, names):
        kept = {}
        for name in names:
            with torch.cuda.stream(self.side):
                scaled = torch.mul(inputs[name], 2)
            self.consumer.wait_stream(self.side)
            with torch.cuda.stream(self.consumer):
                torch.add(scaled, 1)
            kept[name] = scaled
        torch.cuda.current_stream().wait_stream(self.consumer)
        return kept
