# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The stream spellings of PyTorch 2.x and DeepSpeed: a side stream fills a buffer that the
# current stream then reads without waiting for it. Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
import torch
from deepspeed.accelerator import get_accelerator


def cuda_stream_racy(x):
    side = torch.cuda.Stream()
    staged = torch.empty_like(x)
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        staged.copy_(x)
    return staged * 2
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'staged' is read by * on the current stream while copy_ on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:9: note: copy_ writes 'staged' on stream 'side' here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the current stream wait for stream 'side' before this: `torch.cuda.current_stream().wait_stream(side)`
    # CHECK-FIXES: torch.cuda.current_stream().wait_stream(side)
    # CHECK-FIXES-NEXT: return staged * 2


def cuda_stream_ordered(x):
    side = torch.cuda.Stream()
    staged = torch.empty_like(x)
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        staged.copy_(x)
    torch.cuda.current_stream().wait_stream(side)
    return staged * 2


def side_stream_reads_before_waiting(x, z):
    y = torch.mul(x, 3)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.add(y, 1, out=z)
        # CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'y' is read by torch.add on stream 'side' while torch.mul on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:9: note: torch.mul writes 'y' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:19: note: make stream 'side' wait for the current stream before entering it: `side.wait_stream(torch.cuda.current_stream())`
        # CHECK-MESSAGES: :[[@LINE-4]]:29: warning: 'z' is written by torch.add on stream 'side' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-9]]:1: note: the caller's work writes 'z' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-6]]:29: note: make stream 'side' wait for the current stream before entering it: `side.wait_stream(torch.cuda.current_stream())`
        # CHECK-FIXES: side.wait_stream(torch.cuda.current_stream())
        # CHECK-FIXES-NEXT: with torch.cuda.stream(side):
    torch.cuda.current_stream().wait_stream(side)
    return z


def side_stream_waits_first(x, z):
    y = torch.mul(x, 3)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.add(y, 1, out=z)
    torch.cuda.current_stream().wait_stream(side)
    return z


def set_stream_racy(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    main = torch.cuda.current_stream()
    torch.cuda.set_stream(side)
    out.add_(x)
    torch.cuda.set_stream(main)
    out.mul_(2)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'out' is read and written by mul_ on the current stream while add_ on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-4]]:5: note: add_ reads and writes 'out' on stream 'side' here
    # CHECK-MESSAGES: :[[@LINE-3]]:5: note: make the current stream wait for stream 'side' before this: `torch.cuda.current_stream().wait_stream(side)`


def set_stream_ordered(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    main = torch.cuda.current_stream()
    torch.cuda.set_stream(side)
    out.add_(x)
    torch.cuda.set_stream(main)
    main.wait_stream(side)
    out.mul_(2)


def torch_stream_racy(x, out):
    # The 2.x device-generic forms: a torch.Stream is its own context manager.
    side = torch.Stream()
    side.wait_stream(torch.accelerator.current_stream())
    with side:
        out.copy_(x)
    return out.sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'out' is read by sum on the current stream while copy_ on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:9: note: copy_ writes 'out' on stream 'side' here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the current stream wait for stream 'side' before this: `torch.accelerator.current_stream().wait_stream(side)`


def torch_stream_ordered(x, out):
    side = torch.Stream()
    side.wait_stream(torch.accelerator.current_stream())
    with side:
        out.copy_(x)
    torch.accelerator.current_stream().wait_stream(side)
    return out.sum()


class Prefetch:
    """DeepSpeed's accelerator forms, with the stream made in __init__ and used in step()."""

    def __init__(self):
        self.copy_stream = get_accelerator().Stream()

    def step_racy(self, source, buffer):
        self.copy_stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self.copy_stream):
            buffer.copy_(source, non_blocking=True)
        return buffer.norm()
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'buffer' is read by norm on the current stream while copy_ on stream 'self.copy_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-3]]:13: note: copy_ writes 'buffer' on stream 'self.copy_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the current stream wait for stream 'self.copy_stream' before this: `get_accelerator().current_stream().wait_stream(self.copy_stream)`

    def step_ordered(self, source, buffer):
        self.copy_stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self.copy_stream):
            buffer.copy_(source, non_blocking=True)
        get_accelerator().current_stream().wait_stream(self.copy_stream)
        return buffer.norm()


def default_stream_is_not_the_current_one(grad, bucket):
    # Waiting on the default stream orders nothing made on another current stream (a hook's).
    grad.mul_(0.5)
    reduce_stream = torch.cuda.Stream()
    reduce_stream.wait_stream(torch.cuda.default_stream())
    with torch.cuda.stream(reduce_stream):
        bucket.copy_(grad)
        # CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'grad' is read by copy_ on stream 'reduce_stream' while mul_ on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-6]]:5: note: mul_ reads and writes 'grad' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:22: note: make stream 'reduce_stream' wait for the current stream before entering it: `reduce_stream.wait_stream(torch.cuda.current_stream())`
    torch.cuda.current_stream().wait_stream(reduce_stream)


def current_stream_is_waited_for(grad, bucket):
    grad.mul_(0.5)
    reduce_stream = torch.cuda.Stream()
    reduce_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(reduce_stream):
        bucket.copy_(grad)
    torch.cuda.current_stream().wait_stream(reduce_stream)


def parameter_streams_may_be_the_current_one(x, out, stream):
    # `stream` may be the current stream itself: nothing is reported for it.
    with torch.cuda.stream(stream):
        out.copy_(x)
    return out.sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'out' is read by sum on the current stream while copy_ on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE+10]]:12: note: 'parameter_streams_may_be_the_current_one' is called here
    # CHECK-MESSAGES: :[[@LINE-4]]:9: note: copy_ writes 'out' on stream 'side' here
    # CHECK-MESSAGES: :[[@LINE-4]]:12: note: make the current stream wait for stream 'side' between the two (wait_stream, or an event recorded after the first and waited on before the second)


def parameter_stream_given_by_a_caller(x, out):
    # ...but where a caller gives it a side stream, the callee's work is on that stream: the
    # race is reported in the callee, with the call that leads there.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    return parameter_streams_may_be_the_current_one(x, out, side)


# A stream kept in an attribute is named by the attribute: `layer.context.gather_stream` and
# `next_layer.context.gather_stream` are the context's one gather stream, and a wait made
# through one spelling orders the work enqueued through the other.
def gather_for_the_next_layer(layer, next_layer, shard):
    shard.mul_(2)
    layer.context.gather_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(next_layer.context.gather_stream):
        next_layer.full.copy_(shard)


def gather_for_the_next_layer_racy(layer, next_layer, shard):
    shard.mul_(2)
    layer.context.reduce_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(next_layer.context.gather_stream):
        next_layer.full.copy_(shard)
        # CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'shard' is read by copy_ on stream 'next_layer.context.gather_stream' while mul_ on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:5: note: mul_ reads and writes 'shard' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:31: note: make stream 'next_layer.context.gather_stream' wait for stream 'layer.context.reduce_stream' before this: `torch.cuda.current_stream().wait_stream(layer.context.reduce_stream)`


# A gradient is a tensor of its own: scaling it on a side stream leaves the parameter's own
# bytes free to read on the current stream; reading the gradient there races.
def weight_read_while_its_gradient_is_scaled(shape):
    side = torch.cuda.Stream()
    weight = torch.zeros(shape, device="cuda", requires_grad=True)
    weight.grad = torch.ones(shape, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        weight.grad.div_(2)
    norm = weight.norm()
    torch.cuda.current_stream().wait_stream(side)
    return norm


def gradient_read_while_it_is_scaled_racy(shape):
    side = torch.cuda.Stream()
    weight = torch.zeros(shape, device="cuda", requires_grad=True)
    weight.grad = torch.ones(shape, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        weight.grad.div_(2)
    norm = weight.grad.norm()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'weight.grad' is read by norm on the current stream while div_ on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:9: note: div_ reads and writes 'weight.grad' on stream 'side' here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the current stream wait for stream 'side' before this: `torch.cuda.current_stream().wait_stream(side)`
    torch.cuda.current_stream().wait_stream(side)
    return norm


# The stream context kept in an attribute as a library function, chosen by device, and entered
# by calling it (TorchRec's pipelines: `self._stream_context(self._memcpy_stream)`).
class PipelineStage:
    def __init__(self, device):
        self._side = torch.cuda.Stream()
        self._stream_context = torch.get_device_module(device).stream \
            if device.type == "cuda" else torch.cuda.stream

    def stage_racy(self, batch):
        batch.mul_(2)
        with self._stream_context(self._side):
            batch.add_(1)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'batch' is read and written by add_ on stream 'self._side' while mul_ on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:9: note: mul_ reads and writes 'batch' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self._side' wait for the current stream before entering it: `self._side.wait_stream(torch.cuda.current_stream())`

    def stage_waited(self, batch):
        batch.mul_(2)
        self._side.wait_stream(torch.cuda.current_stream())
        with self._stream_context(self._side):
            batch.add_(1)
