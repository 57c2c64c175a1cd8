# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""PyTorch under streamrace: exact byte ranges and Python lines for every operator.

`streamrace run` enables this in every Python process that imports torch (its option
`torch_ops=0` turns that off). By hand, in a process the tracer is attached to:

    import streamrace.torch
    streamrace.torch.enable()

Operators are stated from C++ by a small observer compiled against the process's PyTorch on
first use and cached (observer.py); without a C++ compiler, by a Python dispatch mode (mode.py)
that costs several times more per operator and applies to the thread that enabled it and to the
autograd engine's threads only.
"""
import atexit
import os
import sys
import time

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

    from . import observer
    from .mode import (StreamraceMode, backward_call, follow_backward_calls,
                       follow_coalesced_blocks, follow_stream_calls)

    # A report's Python stack starts at the program's own code.
    for prefix in _library_prefixes(torch):
        tracer.library_prefix(prefix)
    follow_coalesced_blocks(tracer)
    follow_stream_calls(tracer)
    try:
        native = observer.load(torch)
    except observer.Unavailable as error:
        print("streamrace: warning: the compiled operator observer is unavailable (%s); "
              "stating operators from Python instead, at several times the cost" % error,
              file=sys.stderr)
        native = None
    if native is not None:
        follow_backward_calls(tracer, native.streamraceObserverNoteBackward)
        _follow_caching_allocator_natively(tracer, native)
        atexit.register(_stop_following_frees, native)
        _mode = native
    else:
        _follow_caching_allocator(tracer)
        follow_backward_calls(tracer, lambda stack: setattr(backward_call, "stack", stack))
        _mode = StreamraceMode(tracer)
        _mode.__enter__()
    return True


def _library_prefixes(torch):
    """Where library frames live: PyTorch, this package, and Python's standard library (the end
    of a `with` block runs in contextlib), but not the packages installed beside the standard
    library (site-packages may lie inside it: DeepSpeed's lines are what a user needs)."""
    import sysconfig

    prefixes = [os.path.dirname(os.path.abspath(package.__file__)) + os.sep
                for package in (torch, _native)]
    stdlib = os.path.abspath(sysconfig.get_paths()["stdlib"])
    installed = {"site-packages", "dist-packages"}
    for entry in sorted(os.listdir(stdlib)):
        if entry not in installed:
            path = os.path.join(stdlib, entry)
            prefixes.append(path + os.sep if os.path.isdir(path) else path)
    return prefixes


def _follow_caching_allocator_natively(tracer, native):
    """The blocks the caching allocator hands out, from the observer (no Python call per block),
    attached when CUDA initializes (the allocator has its devices then; initializing CUDA here
    would cost a process that never uses it a context); the blocks given back, from the GPU trace
    hook, which runs where the Python lines that dropped the tensor can be read. An allocator that
    takes no trackers (the cudaMallocAsync backend) gets both hooks from Python."""
    import torch.cuda

    def follow():
        if native.streamraceObserverFollowAllocator() != 1:
            _follow_caching_allocator(tracer)
        else:
            _follow_freed_blocks(tracer)

    torch.cuda._lazy_call(follow)


def _stop_following_frees(native):
    """At exit, before the interpreter finalizes: frees stop calling into Python (observer.cpp
    says why). A thread already inside the hook waits for the GIL; the sleep lets it through."""
    native.streamraceObserverStopFollowingFrees()
    time.sleep(0.01)


def _follow_caching_allocator(tracer):
    """The caching allocator's block events, through its GPU trace hooks (PyTorch's own sanitizer
    uses them too): each block handed out is tied to the current stream, each one returned to
    the cache is freed there, with the Python lines that dropped the tensor."""
    import torch
    import torch.cuda._gpu_trace as gpu_trace

    def allocated(address):
        tracer.block_alloc(address, torch.cuda.current_stream().cuda_stream,
                           torch.cuda.current_device())

    gpu_trace.register_callback_for_memory_allocation(allocated)
    _follow_freed_blocks(tracer)


def _follow_freed_blocks(tracer):
    import torch
    import torch.cuda._gpu_trace as gpu_trace

    def freed(address):
        tracer.block_free(address, 0)

    torch._C._activate_gpu_trace()
    gpu_trace.register_callback_for_memory_deallocation(freed)


def enabled():
    return _mode is not None
