# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""PyTorch under streamrace: exact byte ranges and Python lines for every operator.

`streamrace run` enables this in every Python process that imports torch (its option
`torch_ops=0` turns that off). By hand, in a process the tracer is attached to:

    import streamrace.torch
    streamrace.torch.enable()

The mode applies to the thread that enabled it and to the autograd engine's threads; work a
program's other threads issue keeps the tracer's approximate extents.
"""
import os

from .. import _native

_mode = None


def enable():
    """Starts stating operators to the tracer; True when it attached (False untraced)."""
    global _mode
    if _mode is not None:
        return True
    tracer = _native.tracer()
    if tracer is None:
        return False
    import torch

    from .mode import StreamraceMode, follow_backward_calls

    # A report's Python stack starts at the program's own code, past PyTorch and this package.
    for package in (torch, _native):
        tracer.library_prefix(os.path.dirname(os.path.abspath(package.__file__)) + os.sep)
    _follow_caching_allocator(tracer)
    follow_backward_calls(tracer)
    _mode = StreamraceMode(tracer)
    _mode.__enter__()
    return True


def _follow_caching_allocator(tracer):
    """The caching allocator's block events, through its GPU trace hooks (PyTorch's own sanitizer
    uses them too): each block handed out is tied to the current stream, each one returned to
    the cache is freed there, with the Python lines that dropped the tensor."""
    import torch
    import torch.cuda._gpu_trace as gpu_trace

    def allocated(address):
        tracer.block_alloc(address, torch.cuda.current_stream().cuda_stream,
                           torch.cuda.current_device())

    def freed(address):
        tracer.block_free(address, 0)

    torch._C._activate_gpu_trace()
    gpu_trace.register_callback_for_memory_allocation(allocated)
    gpu_trace.register_callback_for_memory_deallocation(freed)


def enabled():
    return _mode is not None
