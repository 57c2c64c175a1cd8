# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Context managers written as generators (`@contextlib.contextmanager`) that switch streams:
# what runs before the `yield` runs where the `with` is entered, what runs after it (the rest of
# the body, a `finally`, a `with` around the yield left) where the `with` is left. The `with`
# body runs on the stream the generator made current. Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
import contextlib

import torch


@contextlib.contextmanager
def switched_to(to_stream, from_stream):
    try:
        torch.cuda.set_stream(to_stream)
        yield
    finally:
        torch.cuda.set_stream(from_stream)


@contextlib.contextmanager
def forked_and_joined():
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        yield side
    torch.cuda.current_stream().wait_stream(side)


@contextlib.contextmanager
def forked_only():
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        yield side


def download_read_before_it_lands(logits):
    copy_stream = torch.cuda.Stream()
    with switched_to(copy_stream, torch.cuda.current_stream()):
        host = logits.to("cpu", non_blocking=True)
    return host.tolist()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: the host reads 'host' (tolist) while logits.to on stream 'copy_stream' may still be writing it; nothing makes the host wait for that stream [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-3]]:16: note: logits.to writes 'host' on stream 'copy_stream' here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the host wait for stream 'copy_stream' before this: `copy_stream.synchronize()`


def download_read_after_it_lands(logits):
    copy_stream = torch.cuda.Stream()
    with switched_to(copy_stream, torch.cuda.current_stream()):
        host = logits.to("cpu", non_blocking=True)
    copy_stream.synchronize()
    return host.tolist()


def scaled_on_the_side_read_without_the_join(grads):
    scaled = grads.clone()
    with forked_only():
        scaled.mul_(0.5)
    return scaled.add(1)
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'scaled' is read by add on the current stream while mul_ on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:9: note: mul_ reads and writes 'scaled' on stream 'side' here


def scaled_on_the_side_read_after_the_join(grads):
    scaled = grads.clone()
    with forked_and_joined():
        scaled.mul_(0.5)
    return scaled.add(1)


def side_stream_yielded(grads):
    # What the generator yields is what `as` binds: here the side stream it entered.
    scaled = grads.clone()
    with forked_only() as side:
        scaled.mul_(0.5)
    torch.cuda.current_stream().wait_stream(side)
    return scaled.add(1)
