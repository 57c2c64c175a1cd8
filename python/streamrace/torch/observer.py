# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The compiled operator observer (observer.cpp): built against this process's own PyTorch the
first time a traced job imports torch, kept in a cache, loaded from there by every later process.

The cache is STREAMRACE_CACHE_DIR (the variable of the run option cache_dir, which `streamrace
run` passes on), else $XDG_CACHE_HOME/streamrace, else ~/.cache/streamrace;
a library is named by a digest of its sources, the PyTorch build and the compiler, so a new
PyTorch or a new streamrace builds a new one. Building takes a C++20 compiler (CXX, else c++)
and about 20 seconds; processes that build at once each write their own file and rename it.
"""
import ctypes
import hashlib
import os
import subprocess
import sys
import tempfile

from .. import torch_model

_HERE = os.path.dirname(os.path.abspath(__file__))
_SOURCE = os.path.join(_HERE, "observer.cpp")
_INCLUDE = os.path.join(_HERE, "include")
_HEADER = os.path.join(_INCLUDE, "streamrace", "op_extents.h")


class Unavailable(Exception):
    """The observer cannot be built or loaded here; the message says why."""


def cache_dir():
    explicit = os.environ.get("STREAMRACE_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "streamrace")


def _cuda_include(torch_dir):
    """CUDA's headers, which PyTorch's allocator header includes: the toolkit's, else the
    copy PyTorch's CUDA wheels install beside it."""
    site = os.path.dirname(torch_dir)
    candidates = [os.path.join(os.environ[name], "include")
                  for name in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(name)]
    candidates.append("/usr/local/cuda/include")
    nvidia = os.path.join(site, "nvidia")
    if os.path.isdir(nvidia):
        candidates += [os.path.join(nvidia, entry, "include") for entry in sorted(os.listdir(nvidia))]
    for candidate in candidates:
        if os.path.exists(os.path.join(candidate, "cuda_runtime_api.h")):
            return candidate
    raise Unavailable("no CUDA headers (cuda_runtime_api.h) found; set CUDA_HOME")


def _compile_command(torch, output):
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__))
    torch_lib = os.path.join(torch_dir, "lib")
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    compiler = os.environ.get("CXX") or "c++"
    return [compiler, "-O2", "-DNDEBUG", "-std=c++20", "-fPIC", "-shared",
            "-D_GLIBCXX_USE_CXX11_ABI=%d" % abi, "-isystem", os.path.join(torch_dir, "include"),
            "-isystem", _cuda_include(torch_dir), "-I", _INCLUDE, _SOURCE, "-L" + torch_lib,
            "-lc10", "-lc10_cuda", "-ltorch_cpu", "-Wl,-rpath," + torch_lib, "-o", output]


def library_path(torch):
    """Where the observer for this PyTorch is (or will be) cached."""
    digest = hashlib.sha256()
    for path in (_SOURCE, _HEADER):
        with open(path, "rb") as source:
            digest.update(source.read())
    digest.update(" ".join(_compile_command(torch, "")).encode())
    digest.update(torch.__version__.encode())
    return os.path.join(cache_dir(), "torch-observer-%s.so" % digest.hexdigest()[:16])


def build(torch):
    """The cached observer library's path, built first if missing."""
    path = library_path(torch)
    if os.path.exists(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".so.partial")
    os.close(handle)
    try:
        command = _compile_command(torch, partial)
        try:
            result = subprocess.run(command, capture_output=True, text=True)
        except OSError as error:
            raise Unavailable("cannot run the C++ compiler %s: %s" % (command[0], error))
        if result.returncode != 0:
            lines = [line for line in result.stderr.splitlines() if "error" in line]
            raise Unavailable("compiling %s failed: %s" % (_SOURCE, (lines or ["?"])[0]))
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return path


def load(torch):
    """The observer, its callbacks installed; raises Unavailable."""
    try:
        library = ctypes.CDLL(build(torch))
    except OSError as error:
        raise Unavailable(str(error))
    library.streamraceObserverNoteBackward.argtypes = [ctypes.c_uint]
    library.streamraceObserverNoteBackward.restype = None
    library.streamraceObserverFollowAllocator.restype = ctypes.c_int
    library.streamraceObserverMetadataOperator.argtypes = [ctypes.c_char_p]
    library.streamraceObserverMetadataOperator.restype = None
    for name in torch_model.METADATA_OPERATORS:
        library.streamraceObserverMetadataOperator(name.encode())
    if library.streamraceObserverEnable() != 1:
        raise Unavailable("the tracer's entry points are missing from the process")
    return library


if __name__ == "__main__":
    # `python -m streamrace.torch.observer`: builds the cached library ahead of the first job.
    import torch as _torch

    try:
        print(build(_torch))
    except Unavailable as error:
        sys.exit("streamrace: %s" % error)
