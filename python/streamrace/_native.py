# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The tracer's Python entry points (tracer/src/python/python_entry.cpp), found in the process.

They are called through ctypes.PyDLL, which keeps the GIL: the tracer reads the caller's Python
frames and the argument lists with the CPython API. `tracer()` is None when libstreamrace.so is
not loaded, so the package does nothing in an untraced run.
"""
import ctypes


def _bind(process, name, argtypes):
    function = getattr(process, name)
    function.argtypes = argtypes
    function.restype = ctypes.c_int
    return function


class Tracer:
    def __init__(self, process):
        objects = ctypes.py_object
        address = ctypes.c_ulonglong
        self.library_prefix = _bind(process, "streamracePythonLibraryPrefix", [objects])
        self.begin_op = _bind(process, "streamracePythonBeginOp", [objects, objects, ctypes.c_int])
        self.begin_op_with_stack = _bind(process, "streamracePythonBeginOpWithStack",
                                         [objects, objects, ctypes.c_int])
        self.capture_stack = _bind(process, "streamracePythonCaptureStack", [ctypes.c_int])
        self.begin_python_lines = _bind(process, "streamracePythonBeginPythonLines",
                                        [ctypes.c_int])
        self.end_op = _bind(process, "streamracePythonEndOp", [objects, objects])
        self.block_alloc = _bind(process, "streamracePythonBlockAlloc",
                                 [address, address, ctypes.c_int])
        self.block_stream_use = _bind(process, "streamracePythonBlockStreamUse",
                                      [address, address])
        self.host_access = _bind(process, "streamracePythonHostAccess", [objects])
        self.block_free = _bind(process, "streamracePythonBlockFree", [address, ctypes.c_int])


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
