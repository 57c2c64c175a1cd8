# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A function called from outside is given tensors the caller's work on the current stream may
# still be writing. A stream the package made is not ordered after that work: touching what the
# function was given there, before the stream waits for the current one, may run first. Held
# only to a stream that waits for nothing anywhere in the package. Each racy function has twins.
# RUN: %check_streamrace %s %t
import torch


def scale_on_a_side_stream_racy(grads):
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        for grad in grads:
            grad.mul_(0.5)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'grads[*]' is read and written by mul_ on stream 'side' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-6]]:1: note: the caller's work writes 'grads[*]' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'side' wait for the current stream before entering it: `side.wait_stream(torch.cuda.current_stream())`
    torch.cuda.current_stream().wait_stream(side)


def scale_on_a_side_stream_after_waiting(grads):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for grad in grads:
            grad.mul_(0.5)
    torch.cuda.current_stream().wait_stream(side)


def scale_after_the_host_waited(grads):
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        for grad in grads:
            grad.mul_(0.5)
    torch.cuda.current_stream().wait_stream(side)


def upload_on_a_side_stream(host_batch):
    # The source of an upload is host memory, which no stream writes.
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        batch = host_batch.to("cuda", non_blocking=True)
    torch.cuda.current_stream().wait_stream(side)
    batch.record_stream(torch.cuda.current_stream())
    return batch


def _scale_on(stream, grads):
    with torch.cuda.stream(stream):
        for grad in grads:
            grad.mul_(0.5)


def scale_through_a_helper(grads):
    # The helper is called by name: its caller here waits first.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    _scale_on(side, grads)
    torch.cuda.current_stream().wait_stream(side)


class Norms:
    def __init__(self):
        self.norm_stream = torch.cuda.Stream()

    def norm_racy(self, flat_grad):
        with torch.cuda.stream(self.norm_stream):
            norm = torch.norm(flat_grad)
            # CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'flat_grad' is read by torch.norm on stream 'self.norm_stream' while the caller's work on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:5: note: the caller's work writes 'flat_grad' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:31: note: make stream 'self.norm_stream' wait for the current stream before entering it: `self.norm_stream.wait_stream(torch.cuda.current_stream())`
        torch.cuda.current_stream().wait_stream(self.norm_stream)
        norm.record_stream(torch.cuda.current_stream())
        return norm


class ForkedNorms:
    """The stream waits for the current one in another method, which the caller runs first."""

    def __init__(self):
        self.fork_stream = torch.cuda.Stream()

    def fork(self):
        self.fork_stream.wait_stream(torch.cuda.current_stream())

    def norm(self, flat_grad):
        with torch.cuda.stream(self.fork_stream):
            norm = torch.norm(flat_grad)
        torch.cuda.current_stream().wait_stream(self.fork_stream)
        norm.record_stream(torch.cuda.current_stream())
        return norm
