# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The tracer's Python entry points (tracer/src/python_entry.cpp), found in the process.

They are called through ctypes.PyDLL, which keeps the GIL: the tracer reads the caller's Python
frames and the argument lists with the CPython API. `tracer()` is None when libstreamrace.so is
not loaded, so the package does nothing in an untraced run.
"""
import ctypes


class Tracer:
    def __init__(self, process):
        self.library_prefix = process.streamracePythonLibraryPrefix
        self.library_prefix.argtypes = [ctypes.py_object]
        self.library_prefix.restype = ctypes.c_int
        self.begin_op = process.streamracePythonBeginOp
        self.begin_op.argtypes = [ctypes.py_object, ctypes.py_object, ctypes.c_int]
        self.begin_op.restype = ctypes.c_int
        self.end_op = process.streamracePythonEndOp
        self.end_op.argtypes = [ctypes.py_object]
        self.end_op.restype = ctypes.c_int


_tracer = None
_looked_up = False


def tracer():
    """The tracer attached to this process, or None."""
    global _tracer, _looked_up
    if not _looked_up:
        _looked_up = True
        try:
            _tracer = Tracer(ctypes.PyDLL(None))
        except (AttributeError, OSError):
            _tracer = None
    return _tracer
