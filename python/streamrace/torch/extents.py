# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The device bytes a tensor covers, as (address, size, mode) triples for the tracer.

A tensor's bytes are its storage's, from its first element on: data_ptr() is the storage's
address plus the tensor's offset. A tensor dense in its span (contiguous, or any permutation of
a contiguous block) is one range; a view with gaps (every other column, a slice of rows of a
transposed matrix) is one range per contiguous run of elements, up to MAX_RUNS, and otherwise
the span that covers them, marked as covering more than the tensor (COVERING).
"""
import torch

READ = 1
WRITE = 2
READ_WRITE = 3
COVERING = 4
MAX_RUNS = 64


def _strided(sizes, strides, element_size, address, mode, out):
    """Ranges of a tensor that is not contiguous: one when it is dense in its span, else its
    innermost contiguous run at every position of the dimensions outside it. Dimensions of one
    element or of stride 0 (an expanded tensor repeats the same bytes) add no bytes."""
    dims = sorted((stride, size) for size, stride in zip(sizes, strides) if size > 1 and stride > 0)
    elements = 1
    span = 1
    for stride, size in dims:
        elements *= size
        span += (size - 1) * stride
    if span == elements:
        out += (address, span * element_size, mode)
        return
    run = 1
    inner = 0
    for stride, size in dims:
        if stride != run:
            break
        run *= size
        inner += 1
    outer = dims[inner:]
    if elements // run > MAX_RUNS:
        out += (address, span * element_size, mode | COVERING)
        return
    offsets = [0]
    for stride, size in outer:
        offsets = [offset + step * stride for offset in offsets for step in range(size)]
    for offset in sorted(offsets):
        out += (address + offset * element_size, run * element_size, mode)


def add_tensor(tensor, mode, out, blocks=None, host=None):
    """Appends the ranges of `tensor` (a plain strided CUDA tensor) and, with `blocks`, the
    address and size of its storage (a new output's caching-allocator block). With `host`, a
    tensor in pinned host memory (which device copies read and write) goes there instead."""
    if tensor.layout != torch.strided:
        return
    if tensor.device.type != "cuda":
        if host is not None and tensor.device.type == "cpu" and tensor.is_pinned():
            out = host
            blocks = None
        else:
            return
    if blocks is not None:
        storage = tensor.untyped_storage()
        blocks += (storage.data_ptr(), storage.nbytes())
    count = tensor.numel()
    if count == 0:
        return
    if tensor.is_contiguous():
        out += (tensor.data_ptr(), count * tensor.element_size(), mode)
    else:
        _strided(tensor.size(), tensor.stride(), tensor.element_size(), tensor.data_ptr(), mode, out)


def add_value(value, mode, out, blocks=None, host=None):
    """Appends the ranges of a tensor argument, or of each tensor in a list of them."""
    if isinstance(value, torch.Tensor):
        add_tensor(value, mode, out, blocks, host)
    elif isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, torch.Tensor):
                add_tensor(item, mode, out, blocks, host)
