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

    from .mode import StreamraceMode

    # A report's Python stack starts at the program's own code, past PyTorch and this package.
    for package in (torch, _native):
        tracer.library_prefix(os.path.dirname(os.path.abspath(package.__file__)) + os.sep)
    _mode = StreamraceMode(tracer)
    _mode.__enter__()
    return True


def enabled():
    return _mode is not None
