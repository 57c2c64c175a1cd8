# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Helpers that move what they are given to the device their caller names, with non_blocking=True.
# To a GPU the copy is ordered on the current stream; to the host it lands in pinned memory and
# the call returns before it is done, so a caller reading the result on the host reads bytes not
# yet written. A helper called with the host is followed into: the result is a host tensor still
# being filled where the caller returns it, the flag given directly or through a dict handed over
# as `**options`. A closure mapped over a collection by a call the check cannot see into is not
# followed, so it is judged where it returns, when a call of the package names the host for the
# device it takes from its maker, and a closure copying to the host likewise. Twins: the flag
# chosen by a test of the device's kind, a blocking copy, a helper the package only gives GPUs,
# and a maker that makes the host wait after mapping its closure (what the closure returns
# reaches code outside through the maker, once the copies are done).
# RUN: %check_streamrace %s %t
import torch

from collections_util import apply_to_tensors


def move_racy(batch, device):
    options = dict(non_blocking=True) if isinstance(batch, torch.Tensor) else {}
    return batch.to(device, **options)


def predictions_to_host_racy(predictions):
    return move_racy(predictions, "cpu")
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: the host tensor 'move_racy()' is returned to the caller of 'predictions_to_host_racy' while batch.to on the current stream may still be writing it; nothing makes the host wait for that stream, and the caller reads it on the host [streamrace-host-access-before-sync]
    # CHECK-MESSAGES: :[[@LINE-6]]:12: note: batch.to writes 'move_racy()' on the current stream here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'move_racy' is called here
    # CHECK-MESSAGES: :[[@LINE-4]]:12: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()` (or copy with non_blocking=False)


def move_collection_racy(collection, device):
    def move_one(data):
        options = dict(non_blocking=True) if isinstance(data, torch.Tensor) else {}
        moved = data.to(device, **options)
        return moved
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'moved' is returned to the caller of 'move_one' while data.to on the current stream may still be writing it: the copy is non-blocking and goes to 'device', which the caller names; when that is the host, the caller reads the result on the host before the copy is done [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-3]]:17: note: data.to writes 'moved' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-5]]:37: note: non_blocking is set here, whatever 'device' is
        # CHECK-MESSAGES: :[[@LINE-4]]:16: note: copy with non_blocking only to a device that is not the host (`non_blocking=torch.device(device).type != "cpu"`), or make the host wait for the current stream before returning

    return apply_to_tensors(collection, function=move_one)


def move_collection_keyed_racy(collection, device):
    def move_one(data):
        options = {}
        options["non_blocking"] = True
        return data.to(device, **options)
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'data.to(device, **options)' is returned to the caller of 'move_one' while data.to on the current stream may still be writing it: the copy is non-blocking and goes to 'device', which the caller names; when that is the host, the caller reads the result on the host before the copy is done [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-2]]:16: note: data.to writes 'data.to(device, **options)' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-4]]:35: note: non_blocking is set here, whatever 'device' is
        # CHECK-MESSAGES: :[[@LINE-4]]:16: note: copy with non_blocking only to a device that is not the host (`non_blocking=torch.device(device).type != "cpu"`), or make the host wait for the current stream before returning

    return apply_to_tensors(collection, function=move_one)


def move(batch, device):
    options = {}
    if isinstance(batch, torch.Tensor) and device not in ("cpu", torch.device("cpu")):
        options["non_blocking"] = True
    return batch.to(device, **options)


def predictions_to_host(predictions):
    return move(predictions, "cpu")


def move_collection(collection, device):
    def move_one(data):
        options = {}
        if torch.device(device).type != "cpu":
            options["non_blocking"] = True
        return data.to(device, **options)

    return apply_to_tensors(collection, function=move_one)


def move_collection_blocking(collection, device):
    def move_one(data):
        return data.to(device)

    return apply_to_tensors(collection, function=move_one)


def upload_collection(collection, device):
    def upload_one(data):
        return data.to(device, non_blocking=True)

    return apply_to_tensors(collection, function=upload_one)


def move_collection_synchronized(collection, device):
    def move_one(data):
        return data.to(device, non_blocking=True)

    moved = apply_to_tensors(collection, function=move_one)
    torch.cuda.current_stream().synchronize()
    return moved


def gather(outputs, inputs):
    return (move_collection_racy(outputs, torch.device("cpu")),
            move_collection_keyed_racy(outputs, device="cpu"),
            move_collection(outputs, "cpu"), move_collection_blocking(outputs, "cpu"),
            move_collection_synchronized(outputs, "cpu"),
            upload_collection(inputs, torch.device("cuda")))


def map_to_host_racy(predictions):
    def to_host(data):
        return data.to("cpu", non_blocking=True)
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: the host tensor 'data.to('cpu', non_blocking=True)' is returned to the caller of 'to_host' while data.to on the current stream may still be writing it; nothing makes the host wait for that stream, and the caller reads it on the host [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-2]]:16: note: data.to writes 'data.to('cpu', non_blocking=True)' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()` (or copy with non_blocking=False)

    return apply_to_tensors(predictions, function=to_host)


def map_to_host(predictions):
    def to_host(data):
        return data.to("cpu", non_blocking=True)

    moved = apply_to_tensors(predictions, function=to_host)
    torch.cuda.synchronize()
    return moved


class ActivationOffloader:
    def __init__(self, overlap):
        self.overlap = overlap

    def offload_racy(self, activation):
        options = {}
        if self.overlap:
            options["non_blocking"] = True
        return activation.to("cpu", **options)
        # CHECK-MESSAGES: :[[@LINE-1]]:16: warning: the host tensor 'activation.to('cpu', **options)' is returned to the caller of 'offload_racy' while activation.to on the current stream may still be writing it; nothing makes the host wait for that stream, and the caller reads it on the host [streamrace-host-access-before-sync]
        # CHECK-MESSAGES: :[[@LINE-2]]:16: note: activation.to writes 'activation.to('cpu', **options)' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:16: note: make the host wait for the current stream before this: `torch.cuda.current_stream().synchronize()` (or copy with non_blocking=False)

    def offload(self, activation):
        options = {}
        if self.overlap:
            options["non_blocking"] = True
        moved = activation.to("cpu", **options)
        if self.overlap:
            torch.cuda.current_stream().synchronize()
        return moved
