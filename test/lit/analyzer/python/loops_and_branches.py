# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Streams and buffers kept in an object across its methods, loops whose next iteration overwrites
# what the previous iteration's collective still reads, and a stream chosen by a flag that a
# later branch tests again; a range loop whose next iteration touches the element the last one
# handed to a collective (forwards or backwards), and a wait the iterations after the first make
# (`if index > 0:`). Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class Reducer:
    def __init__(self, overlap):
        self.overlap = overlap
        self.comm_stream = torch.cuda.Stream()
        self.buffer = torch.empty(1 << 20, device="cuda")

    def reduce_every_bucket_racy(self, buckets):
        for bucket in buckets:
            self.buffer.copy_(bucket)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'self.buffer' is written by copy_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE+4]]:33: note: all_reduce reads and writes 'self.buffer' on the process group's stream (the default group) here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make the current stream wait for stream 'self.comm_stream' before this: `torch.cuda.current_stream().wait_stream(self.comm_stream)`
            self.comm_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.comm_stream):
                dist.all_reduce(self.buffer)

    def reduce_every_bucket_ordered(self, buckets):
        for bucket in buckets:
            torch.cuda.current_stream().wait_stream(self.comm_stream)
            self.buffer.copy_(bucket)
            self.comm_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.comm_stream):
                dist.all_reduce(self.buffer)

    def ping_pong(self, buckets):
        # Two buffers used in turn: bucket i+1 fills the other one while bucket i's reduction
        # reads this one.
        buffers = [torch.empty(1 << 20, device="cuda"), torch.empty(1 << 20, device="cuda")]
        index = 0
        for bucket in buckets:
            buffers[index].copy_(bucket)
            self.comm_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.comm_stream):
                dist.all_reduce(buffers[index])
            torch.cuda.current_stream().wait_stream(self.comm_stream)
            index = 1 - index

    def flag_chosen_stream_racy(self, grads):
        if self.overlap:
            stream = self.comm_stream
        else:
            stream = torch.cuda.current_stream()
        grads.div_(8)
        with torch.cuda.stream(stream):
            dist.all_reduce(grads)
            # CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'grads' is read and written by all_reduce on the process group's stream (the default group) while div_ on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:9: note: div_ reads and writes 'grads' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:29: note: make stream 'self.comm_stream' wait for the current stream before entering it: `self.comm_stream.wait_stream(torch.cuda.current_stream())`
        if self.overlap:
            torch.cuda.current_stream().wait_stream(stream)

    def flag_chosen_stream_ordered(self, grads):
        grads.div_(8)
        if self.overlap:
            stream = self.comm_stream
            stream.wait_stream(torch.cuda.current_stream())
        else:
            stream = torch.cuda.current_stream()
        with torch.cuda.stream(stream):
            dist.all_reduce(grads)
        if self.overlap:
            torch.cuda.current_stream().wait_stream(stream)


class Bucket:
    def __init__(self, data):
        self.data = data


# A call given the loop's element returns another object in each iteration; one given nothing
# that changes returns the same one. An object a followed helper hands back is its call's own.
class BucketReducer:
    def reduce_each_bucket(self, bucket_ids):
        works = []
        for bucket_id in bucket_ids:
            bucket = self.buffers.fetch(bucket_id)
            bucket.mul_(2)
            works.append(dist.all_reduce(bucket, async_op=True))
        for work in works:
            work.wait()

    def reduce_each_bucket_converted(self, bucket_ids, dtype):
        # Either branch gives each iteration its own bucket: the join keeps them apart.
        works = []
        for bucket_id in bucket_ids:
            buffer = self.buffer_of(bucket_id)
            bucket = buffer.fetch()
            if bucket.dtype != dtype:
                bucket = buffer.converted(dtype=dtype, initial=bucket.data)
            grad = bucket.data
            grad.mul_(2)
            works.append(dist.all_reduce(grad, async_op=True))
        for work in works:
            work.wait()

    def reduce_converted_through_one_staging_buffer_racy(self, bucket_ids, dtype):
        works = []
        for bucket_id in bucket_ids:
            buffer = self.buffer_of(bucket_id)
            bucket = buffer.fetch()
            if bucket.dtype != dtype:
                bucket = self.staging(dtype)
            grad = bucket.data
            grad.mul_(2)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'bucket' is read and written by mul_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE+2]]:42: note: all_reduce reads and writes 'bucket' on the process group's stream (the default group) here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
            works.append(dist.all_reduce(grad, async_op=True))
        for work in works:
            work.wait()

    def reduce_each_bucket_converted_by_a_helper(self, bucket_ids, dtype):
        # The helper the analysis follows allocates the converted bucket on each call: the
        # join keeps that bucket and the fetched one apart in each iteration too.
        works = []
        for bucket_id in bucket_ids:
            buffer = self.buffer_of(bucket_id)
            bucket = buffer.fetch()
            if buffer.grad_dtype != dtype:
                bucket = self.allocate_converted(buffer, dtype, bucket.data)
            grad = bucket.data
            grad.mul_(2)
            works.append(dist.all_reduce(grad, async_op=True))
        for work in works:
            work.wait()

    def allocate_converted(self, buffer, dtype, initial):
        converted = buffer.allocator.allocate(buffer.size, dtype=dtype)
        converted.data.copy_(initial, non_blocking=True)
        return converted

    def reduce_each_bucket_wrapped_by_a_helper(self, bucket_ids, dtype):
        # The same with the helper's storage handed back in a new object of the package's.
        works = []
        for bucket_id in bucket_ids:
            buffer = self.buffer_of(bucket_id)
            bucket = buffer.fetch()
            if buffer.comm_dtype != dtype:
                bucket = self.converted_bucket(buffer, dtype, bucket.data)
            grad = bucket.data
            grad.mul_(2)
            works.append(dist.all_reduce(grad, async_op=True))
        for work in works:
            work.wait()

    def converted_bucket(self, buffer, dtype, initial):
        data = buffer.allocator.allocate(buffer.size, dtype=dtype)
        data.copy_(initial, non_blocking=True)
        return Bucket(data)

    def reduce_converted_by_a_helper_through_one_staging_buffer_racy(self, bucket_ids, dtype):
        works = []
        for bucket_id in bucket_ids:
            buffer = self.buffer_of(bucket_id)
            bucket = buffer.fetch()
            if buffer.needs_staging:
                bucket = self.converted_in_staging(bucket.data)
            grad = bucket.data
            grad.mul_(2)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'grad' is read and written by mul_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE+2]]:42: note: all_reduce reads and writes 'grad' on the process group's stream (the default group) here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
            works.append(dist.all_reduce(grad, async_op=True))
        for work in works:
            work.wait()

    def converted_in_staging(self, initial):
        self.staging_bucket.data.copy_(initial, non_blocking=True)
        return self.staging_bucket

    def reduce_through_one_staging_buffer_racy(self, bucket_ids):
        works = []
        for bucket_id in bucket_ids:
            staging = self.buffers.staging()
            staging.copy_(self.grads[bucket_id])
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'staging' is written by copy_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE+2]]:42: note: all_reduce reads and writes 'staging' on the process group's stream (the default group) here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
            works.append(dist.all_reduce(staging, async_op=True))
        for work in works:
            work.wait()


# A range's next iteration is the next index: each element reduced while the next one is
# scaled is ordered; reducing the element the next iteration scales is not.
def scale_then_reduce_each(grads):
    works = []
    for i in range(len(grads)):
        grads[i].mul_(2)
        works.append(dist.all_reduce(grads[i], async_op=True))
    for work in works:
        work.wait()


def scale_then_reduce_the_next_racy(grads):
    works = []
    for i in range(len(grads) - 1):
        grads[i].mul_(2)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'grads[range + 1]' is read and written by mul_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+2]]:38: note: all_reduce reads and writes 'grads[range + 1]' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        works.append(dist.all_reduce(grads[i + 1], async_op=True))
    for work in works:
        work.wait()


# Backwards, the next iteration's index is the one before.
def scale_then_reduce_the_one_after_backwards(grads):
    works = []
    for i in reversed(range(1, len(grads) - 1)):
        grads[i].mul_(2)
        works.append(dist.all_reduce(grads[i + 1], async_op=True))
    for work in works:
        work.wait()


def scale_then_reduce_the_one_before_backwards_racy(grads):
    works = []
    for i in reversed(range(1, len(grads))):
        grads[i].mul_(2)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'grads[range - 1]' is read and written by mul_ on the current stream while all_reduce on the process group's stream (the default group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+2]]:38: note: all_reduce reads and writes 'grads[range - 1]' on the process group's stream (the default group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        works.append(dist.all_reduce(grads[i - 1], async_op=True))
    for work in works:
        work.wait()

class SwappedWhereOverlapping:
    """The buffer of a ping-pong pair filled next is the other one only where the reduction
    overlaps (`contiguous and overlap`); the flags are joined at the reduction's return. Skipped,
    the test says `not contiguous`, or `contiguous and not overlap`: where `if contiguous:` then
    fills the same buffer, the reduction ran on the current stream."""

    def __init__(self, contiguous, overlap):
        self.contiguous = contiguous
        self.overlap = overlap
        self.reduction_stream = torch.cuda.Stream()
        self.elements_reduced = 0

    def reduce(self, bucket):
        torch.cuda.current_stream().wait_stream(self.reduction_stream)
        if self.overlap:
            self.reduction_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.reduction_stream):
                bucket.buffer[bucket.index].div_(2)
        else:
            bucket.buffer[bucket.index].div_(2)
        return bucket.elements

    def add_grad(self, grad):
        bucket = self.bucket
        self.elements_reduced += self.reduce(bucket)
        if self.contiguous and self.overlap:
            bucket.index = 1 - bucket.index
        if self.contiguous:
            bucket.buffer[bucket.index].copy_(grad)

    def add_grad_unswapped_racy(self, grad):
        bucket = self.bucket
        self.elements_reduced += self.reduce(bucket)
        if self.contiguous and self.overlap:
            bucket.index = 1 - bucket.index
        if self.overlap:
            bucket.buffer[bucket.index].copy_(grad)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'self.bucket.buffer[self.bucket.index]' is written by copy_ on the current stream while div_ on stream 'self.reduction_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-21]]:17: note: div_ reads and writes 'self.bucket.buffer[self.bucket.index]' on stream 'self.reduction_stream' here
            # CHECK-MESSAGES: :[[@LINE-7]]:34: note: 'reduce' is called here
            # CHECK-MESSAGES: :[[@LINE-4]]:13: note: make the current stream wait for stream 'self.reduction_stream' before this: `torch.cuda.current_stream().wait_stream(self.reduction_stream)`


# Each layer's output is reduced asynchronously and waited for in the next iteration, once there
# is a previous layer (`if index > 0:`, DeepSpeed Domino's layer loop): every later iteration
# passes that test, so the read after it is ordered. A test the second iteration may fail
# (`index > 1`) leaves the previous layer's reduction unwaited there.
def layers_waiting_for_the_previous_reduction(layers, hidden, group):
    handle = None
    for index in range(len(layers)):
        if index > 0:
            handle.wait()
            hidden = layers[index - 1].finish(hidden)
        normed = layers[index].norm(hidden)
        hidden = layers[index].mlp(normed)
        handle = dist.all_reduce(hidden, group=group, async_op=True)
    handle.wait()
    return hidden


def layers_waiting_from_the_second_on_racy(layers, hidden, group):
    handle = None
    for index in range(len(layers)):
        if index > 1:
            handle.wait()
            hidden = layers[index - 1].finish(hidden)
        normed = layers[index].norm(hidden)
        # CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'hidden' is read by norm on the current stream while all_reduce on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+3]]:34: note: all_reduce reads and writes 'hidden' on the process group's stream (group=group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:37: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        hidden = layers[index].mlp(normed)
        handle = dist.all_reduce(hidden, group=group, async_op=True)
    handle.wait()
    return hidden


# Counting down, the start is the greatest number, not the least: a later iteration may be the
# one at 0, which skips the wait.
def layers_counting_down_racy(layers, hidden, group):
    handle = None
    for index in range(5, -1, -1):
        if index > 0:
            handle.wait()
            hidden = layers[index].finish(hidden)
        normed = layers[index].norm(hidden)
        # CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'hidden' is read by norm on the current stream while all_reduce on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+3]]:34: note: all_reduce reads and writes 'hidden' on the process group's stream (group=group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:37: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        hidden = layers[index].mlp(normed)
        handle = dist.all_reduce(hidden, group=group, async_op=True)
    handle.wait()
    return hidden
