# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# torch.distributed with the NCCL process group: a collective runs on the group's stream after
# the current stream's earlier work; without async_op the current stream waits for it at once,
# with async_op only at work.wait(). Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


def overwrite_before_the_reduction_ends(grads, incoming):
    work = dist.all_reduce(grads, async_op=True)
    grads.copy_(incoming)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'grads' is written by copy_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:28: note: all_reduce reads and writes 'grads' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    work.wait()


def overwrite_after_waiting(grads, incoming):
    work = dist.all_reduce(grads, async_op=True)
    work.wait()
    grads.copy_(incoming)


def synchronous_collectives_need_no_wait(grads, incoming):
    dist.all_reduce(grads)
    grads.copy_(incoming)


def gather_on_a_side_stream_read_on_the_current_one(shard, full, group):
    comm = torch.cuda.Stream()
    comm.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(comm):
        dist.all_gather_into_tensor(full, shard, group=group)
    return full.sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'full' is read by sum on the current stream while all_gather_into_tensor on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:37: note: all_gather_into_tensor writes 'full' on the process group's stream (group=group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the current stream wait for stream 'comm' before this: `torch.cuda.current_stream().wait_stream(comm)`


def gather_on_a_side_stream_waited_for(shard, full, group):
    comm = torch.cuda.Stream()
    comm.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(comm):
        dist.all_gather_into_tensor(full, shard, group=group)
    torch.cuda.current_stream().wait_stream(comm)
    return full.sum()


def receive_read_before_waiting(buffer, peer):
    request = dist.irecv(buffer, src=peer)
    total = buffer.sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'buffer' is read by sum on the current stream while irecv on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:26: note: irecv writes 'buffer' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    request.wait()
    return total


def receive_read_after_waiting(buffer, peer):
    request = dist.irecv(buffer, src=peer)
    request.wait()
    return buffer.sum()


def batched_send_overwritten_before_waiting(outgoing, incoming, peer, update):
    operations = [dist.P2POp(dist.isend, outgoing, peer), dist.P2POp(dist.irecv, incoming, peer)]
    requests = dist.batch_isend_irecv(operations)
    outgoing.add_(update)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'outgoing' is read and written by add_ on the current stream while batch_isend_irecv on the process group's point-to-point stream may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:16: note: batch_isend_irecv reads 'outgoing' on the process group's point-to-point stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    for request in requests:
        request.wait()


def batched_send_overwritten_after_waiting(outgoing, incoming, peer, update):
    operations = [dist.P2POp(dist.isend, outgoing, peer), dist.P2POp(dist.irecv, incoming, peer)]
    requests = dist.batch_isend_irecv(operations)
    for request in requests:
        request.wait()
    outgoing.add_(update)


def appended_receive_read_before_waiting(outgoing, incoming, peer):
    # Megatron-LM's p2p_communication builds the operations one append at a time.
    operations = []
    operations.append(dist.P2POp(dist.isend, outgoing, peer))
    operations.append(dist.P2POp(dist.irecv, incoming, peer))
    requests = dist.batch_isend_irecv(operations)
    total = incoming.sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'incoming' is read by sum on the current stream while batch_isend_irecv on the process group's point-to-point stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:16: note: batch_isend_irecv writes 'incoming' on the process group's point-to-point stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    for request in requests:
        request.wait()
    return total


def appended_receive_read_after_waiting(outgoing, incoming, peer):
    operations = []
    operations.append(dist.P2POp(dist.isend, outgoing, peer))
    operations.append(dist.P2POp(dist.irecv, incoming, peer))
    for request in dist.batch_isend_irecv(operations):
        request.wait()
    return incoming.sum()


def received_copied_on_a_side_stream(incoming, peer, group, device_buffer):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    operations = []
    operations.append(dist.P2POp(dist.irecv, incoming, peer, group=group))
    for request in dist.batch_isend_irecv(operations):
        request.wait()
    with torch.cuda.stream(side):
        device_buffer.copy_(incoming)
        # CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'incoming' is read by copy_ on stream 'side' while batch_isend_irecv on the process group's point-to-point stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:20: note: batch_isend_irecv writes 'incoming' on the process group's point-to-point stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:29: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    torch.cuda.current_stream().wait_stream(side)


def received_by_gloo_copied_on_a_side_stream(incoming, peer, gloo_group, device_buffer):
    # A Gloo group's requests are the host's: waiting for them orders every stream's later work.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    operations = []
    operations.append(dist.P2POp(dist.irecv, incoming, peer, group=gloo_group))
    for request in dist.batch_isend_irecv(operations):
        request.wait()
    with torch.cuda.stream(side):
        device_buffer.copy_(incoming)
    torch.cuda.current_stream().wait_stream(side)


def single_tensor_reduce_scatter_overwritten_before_waiting(shard, grads, update):
    work = dist.reduce_scatter_single(shard, grads, async_op=True)
    grads.add_(update)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'grads' is read and written by add_ on the current stream while reduce_scatter_single on the process group's stream (the default group) may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:46: note: reduce_scatter_single reads 'grads' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    work.wait()


def single_tensor_reduce_scatter_overwritten_after_waiting(shard, grads, update):
    work = dist.reduce_scatter_single(shard, grads, async_op=True)
    work.wait()
    grads.add_(update)


# Waiting for a handle waits for an event recorded after the collective on its group's stream:
# for what that stream had seen, the current stream's work it followed at the launch included.
def scatter_seen_through_a_later_handle_racy(flat, partial, total, rs_group, ar_group):
    side = torch.cuda.Stream()
    work = dist.reduce_scatter_tensor(partial, flat, group=rs_group, async_op=True)
    handle = dist.all_reduce(total, group=ar_group, async_op=True)
    work.wait()
    with torch.cuda.stream(side):
        handle.wait()
        partial.mul_(2)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'partial' is read and written by mul_ on stream 'side' while reduce_scatter_tensor on the process group's stream (group=rs_group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-7]]:39: note: reduce_scatter_tensor writes 'partial' on the process group's stream (group=rs_group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    torch.cuda.current_stream().wait_stream(side)


def scatter_seen_through_a_later_handle_ordered(flat, partial, total, rs_group, ar_group):
    side = torch.cuda.Stream()
    work = dist.reduce_scatter_tensor(partial, flat, group=rs_group, async_op=True)
    work.wait()
    handle = dist.all_reduce(total, group=ar_group, async_op=True)
    with torch.cuda.stream(side):
        handle.wait()
        partial.mul_(2)
    torch.cuda.current_stream().wait_stream(side)


# Handles appended to a list are its elements: waiting for each waits for every collective.
def chunks_scaled_before_their_reductions_end(chunks, group):
    side = torch.cuda.Stream()
    works = []
    for chunk in chunks:
        works.append(dist.all_reduce(chunk, group=group, async_op=True))
    with torch.cuda.stream(side):
        for chunk in chunks:
            chunk.mul_(2)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'chunks[*]' is read and written by mul_ on stream 'side' while all_reduce on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-5]]:38: note: all_reduce reads and writes 'chunks[*]' on the process group's stream (group=group) here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
            # CHECK-MESSAGES: :[[@LINE-4]]:13: warning: 'chunks[*]' is read and written by mul_ on stream 'side' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-12]]:1: note: the caller's work writes 'chunks[*]' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-6]]:13: note: make stream 'side' wait for the current stream before entering it: `side.wait_stream(torch.cuda.current_stream())`
    torch.cuda.current_stream().wait_stream(side)


def chunks_scaled_after_their_reductions_end(chunks, group):
    side = torch.cuda.Stream()
    works = []
    for chunk in chunks:
        works.append(dist.all_reduce(chunk, group=group, async_op=True))
    with torch.cuda.stream(side):
        for work in works:
            work.wait()
        for chunk in chunks:
            chunk.mul_(2)
    torch.cuda.current_stream().wait_stream(side)


# A coalescing manager given its group by position: the collectives it holds run when it exits,
# and without async_ops the current stream waits for that group's stream there.
def scaled_inside_the_coalesced_reduction(out, grads, group):
    with dist._coalescing_manager(group):
        dist.reduce_scatter_tensor(out, grads, group=group)
        out.mul_(2)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out' is read and written by mul_ on the current stream while reduce_scatter_tensor on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-3]]:36: note: reduce_scatter_tensor writes 'out' on the process group's stream (group=group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this


def scaled_after_the_coalesced_reduction(out, grads, group):
    with dist._coalescing_manager(group):
        dist.reduce_scatter_tensor(out, grads, group=group)
    out.mul_(2)


# Inside a coalescing manager every collective is issued on the manager's group and completes
# with it, whatever group the call names (one manager around each bucket's collective on the
# bucket's own group): the wait at its exit, or for its handle, covers them all.
def scaled_inside_a_manager_of_another_group(buckets, group):
    with dist._coalescing_manager(group):
        for bucket in buckets:
            flat = torch.zeros(bucket.numel, device="cuda")
            dist.all_reduce(flat, group=bucket.group)
            flat.mul_(2)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'flat' is read and written by mul_ on the current stream while all_reduce on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-3]]:29: note: all_reduce reads and writes 'flat' on the process group's stream (group=group) here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this


def scaled_after_a_manager_of_another_group(buckets, group):
    with dist._coalescing_manager(group):
        for bucket in buckets:
            flat = torch.zeros(bucket.numel, device="cuda")
            dist.all_reduce(flat, group=bucket.group)
    flat.mul_(2)


def scaled_after_waiting_for_a_manager_of_another_group(buckets, group):
    with dist._coalescing_manager(group, async_ops=True) as cm:
        for bucket in buckets:
            flat = torch.zeros(bucket.numel, device="cuda")
            dist.all_reduce(flat, group=bucket.group)
    cm.wait()
    flat.mul_(2)


# NCCL's barrier returns once the current stream's earlier work is done: a download before it
# has landed when the host reads it after the barrier, not before.
def downloaded_then_read_after_the_barrier(source):
    pinned = torch.empty(source.shape, pin_memory=True)
    pinned.copy_(source, non_blocking=True)
    dist.barrier()
    return pinned.tolist()


def downloaded_then_read_before_the_barrier_racy(source):
    pinned = torch.empty(source.shape, pin_memory=True)
    pinned.copy_(source, non_blocking=True)
    values = pinned.tolist()
    # CHECK-MESSAGES: :[[@LINE-1]]:14: warning: the host reads 'pinned' (tolist) while copy_ on the current stream may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: copy_ writes 'pinned' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:14: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()`
    dist.barrier()
    return values


# `async_op=flag`: where the flag is tested again, the collective is asynchronous on the paths
# where it holds, and the current stream waits for it at once on the others.
def reduced_and_overwritten_when_asynchronous(grads, incoming, async_op):
    work = dist.all_reduce(grads, async_op=async_op)
    grads.copy_(incoming)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'grads' is written by copy_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:28: note: all_reduce reads and writes 'grads' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    if async_op:
        return work
    return None


def reduced_and_waited_for_when_asynchronous(grads, incoming, async_op):
    work = dist.all_reduce(grads, async_op=async_op)
    if async_op:
        work.wait()
    grads.copy_(incoming)


class FlaggedGather:
    def __init__(self, buckets, overlap):
        self.buckets = buckets
        self.overlap = overlap
        self.handle = None

    def gather_then_zero_without_waiting(self):
        with dist._coalescing_manager(None, async_ops=self.overlap) as cm:
            for bucket in self.buckets:
                dist.all_gather_into_tensor(bucket.flat, bucket.shard)
        if self.overlap:
            self.handle = cm
        for bucket in self.buckets:
            bucket.flat.zero_()
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'self.buckets[*].flat' is read and written by zero_ on the current stream while all_gather_into_tensor on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-6]]:45: note: all_gather_into_tensor writes 'self.buckets[*].flat' on the process group's stream (the default group) here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this

    def gather_then_zero_after_the_handle(self):
        with dist._coalescing_manager(None, async_ops=self.overlap) as cm:
            for bucket in self.buckets:
                dist.all_gather_into_tensor(bucket.flat, bucket.shard)
        if self.overlap:
            self.handle = cm
        if self.handle is not None:
            self.handle.wait()
            self.handle = None
        for bucket in self.buckets:
            bucket.flat.zero_()


# A list the loop builds anew holds that iteration's views: the element a rank fills is another
# tensor in each iteration, so filling it is not a race with the previous iteration's gather.
def gather_each_bucket_into_its_own_slots(buckets, rank, source, world, async_op):
    works = []
    for bucket in buckets:
        slots = []
        for i in range(world):
            slots.append(bucket[i * 8:(i + 1) * 8])
        mine = slots[rank]
        mine.copy_(source)
        work = dist.all_gather(slots, mine, async_op=async_op)
        if async_op:
            works.append(work)
    for work in works:
        work.wait()


# A handle object that keeps the output reads none of it when made: its wait() does.
class ScaledWork:
    def __init__(self, work, output):
        self.work = work
        self.output = output

    def wait(self):
        self.work.wait()
        self.output.mul_(2)


class ScaledWorkReadingEarly:
    def __init__(self, work, output):
        self.work = work
        self.norm = output.norm()

    def wait(self):
        self.work.wait()


def reduce_with_a_handle_object(grads):
    work = dist.all_reduce(grads, async_op=True)
    return ScaledWork(work, grads)


def reduce_with_a_handle_object_that_reads_too_early(grads):
    work = dist.all_reduce(grads, async_op=True)
    return ScaledWorkReadingEarly(work, grads)
    # CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'grads' is read by __init__ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:28: note: all_reduce reads and writes 'grads' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:41: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this


# A package class's own method named as a container's or a timer's (`start`, `update`) is
# followed like any other: the gather it starts is pending in the caller.
class GatherPhases:
    def __init__(self, buckets):
        self.buckets = buckets
        self.work = None

    def start(self):
        for bucket in self.buckets:
            self.work = dist.all_reduce(bucket.flat, async_op=True)

    def finish_racy(self):
        self.start()
        for bucket in self.buckets:
            bucket.flat.mul_(2)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'self.buckets[*].flat' is read and written by mul_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-7]]:41: note: all_reduce reads and writes 'self.buckets[*].flat' on the process group's stream (the default group) here
            # CHECK-MESSAGES: :[[@LINE-5]]:9: note: 'start' is called here
            # CHECK-MESSAGES: :[[@LINE-4]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this

    def finish(self):
        self.start()
        self.work.wait()
        for bucket in self.buckets:
            bucket.flat.mul_(2)


def read_before_the_guarded_wait(x):
    handle = dist.all_reduce(x, async_op=True)
    total = x.sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'x' is read by sum on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:30: note: all_reduce reads and writes 'x' on the process group's stream (the default group) here
    # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
    if isinstance(handle, dist.Work):
        handle.wait()
    return total


def read_after_the_guarded_wait(x):
    handle = dist.all_reduce(x, async_op=True)
    if isinstance(handle, dist.Work):
        handle.wait()
    return x.sum()
