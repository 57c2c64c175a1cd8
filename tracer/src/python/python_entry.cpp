// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The entry points of the Python package (python/streamrace/torch): the op API of
// streamrace/op_extents.h taking Python lists, so an op costs the package one call at its start
// and one at its end, and capturing the Python frames of the op's caller. Called through
// ctypes.PyDLL, with the GIL held. Ranges come as a flat list of integers, three per range:
// address, size in bytes, and the mode (1 read, 2 write, 3 read-write) plus 4 when the range only
// covers the bytes (a view with gaps).
#include "ops/op_scopes.h"
#include "python/entry_points.h"
#include "python/python_api.h"
#include "recorder.h"
#include "stacks/python_stacks.h"

#include <string>
#include <vector>

namespace streamrace::tracer {

namespace {

constexpr unsigned long long kCoveringFlag = 4;

// Calls `take` with each group of `width` integers of a flat list; false when the list is not
// made of such groups or `take` refuses one.
template <typename Take>
bool read_integers(const PythonApi& python, PyObjectPtr list, std::size_t width, Take&& take) {
  const std::ptrdiff_t count = python.list_size(list);
  const auto step = static_cast<std::ptrdiff_t>(width);
  if (count < 0 || count % step != 0) {
    python.err_clear();
    return false;
  }
  unsigned long long group[3] = {};
  for (std::ptrdiff_t i = 0; i < count; i += step) {
    for (std::ptrdiff_t j = 0; j < step; ++j)
      group[j] = python.long_as_unsigned_long_long(python.list_get_item(list, i + j));
    if (python.err_occurred() != nullptr || !take(group)) {
      python.err_clear();
      return false;
    }
  }
  return true;
}

// False when the list is not what the package sends.
bool read_ranges(const PythonApi& python, PyObjectPtr list, std::vector<Access>& out) {
  out.clear();
  return read_integers(python, list, 3, [&](const unsigned long long* range) {
    const unsigned long long mode = range[2];
    if ((mode & 3) == 0) return false;
    out.push_back(Access{range[0], range[1],
                         (mode & 3) == 1   ? AccessMode::Read
                         : (mode & 3) == 2 ? AccessMode::Write
                                           : AccessMode::ReadWrite,
                         (mode & kCoveringFlag) != 0 ? Extent::Approximate : Extent::Exact});
    return true;
  });
}

// run_entry_point for calls that read Python objects: nothing to do without the Python API.
template <typename Body> int guarded(const char* what, Body&& body) {
  const PythonApi* python = PythonApi::get();
  if (python == nullptr) return 0;
  return run_entry_point(what, [&](Recorder&) { return body(*python); });
}

thread_local std::vector<Access> ranges;

} // namespace

} // namespace streamrace::tracer

using namespace streamrace;
using namespace streamrace::tracer;

#define STREAMRACE_PYTHON_ENTRY extern "C" __attribute__((visibility("default"))) int

// Files under `prefix` are library code: a stack starts at the first frame outside them.
STREAMRACE_PYTHON_ENTRY streamracePythonLibraryPrefix(PyObjectPtr prefix) {
  return guarded("streamracePythonLibraryPrefix", [&](const PythonApi& python) {
    const char* text = python.unicode_as_utf8(prefix);
    if (text == nullptr) {
      python.err_clear();
      return false;
    }
    PythonStacks::instance().add_library_prefix(text);
    return true;
  });
}

// Opens an op named `name` (a str) with the ranges of `extents`; the caller's frames below its
// `skip` innermost are the op's Python stack.
STREAMRACE_PYTHON_ENTRY streamracePythonBeginOp(PyObjectPtr name, PyObjectPtr extents, int skip) {
  return guarded("streamracePythonBeginOp", [&](const PythonApi& python) {
    const char* text = python.unicode_as_utf8(name);
    if (text == nullptr || !read_ranges(python, extents, ranges)) {
      python.err_clear();
      return false;
    }
    OpScopes::begin(OpScopes::intern_name(text), ranges, PythonStacks::instance().capture(skip));
    return true;
  });
}

// Opens a scope that gives the calls made in it the caller's frames below its `skip` innermost
// and nothing else (closed by streamracePythonEndOp): device work a library issues outside any
// operator, named and sized by the tracer as without the package.
STREAMRACE_PYTHON_ENTRY streamracePythonBeginPythonLines(int skip) {
  return guarded("streamracePythonBeginPythonLines", [&](const PythonApi&) {
    OpScopes::begin_python_lines(PythonStacks::instance().capture(skip));
    return true;
  });
}

// Closes the innermost op, adding the ranges of `extents` (its new outputs); `blocks` is a flat
// list of (address, size) pairs: the caching-allocator blocks of those outputs.
STREAMRACE_PYTHON_ENTRY streamracePythonEndOp(PyObjectPtr extents, PyObjectPtr blocks) {
  return guarded("streamracePythonEndOp", [&](const PythonApi& python) {
    std::vector<std::pair<Address, std::uint64_t>> sizes;
    if (!read_integers(python, blocks, 2, [&](const unsigned long long* pair) {
          sizes.emplace_back(pair[0], pair[1]);
          return true;
        }))
      return false;
    return read_ranges(python, extents, ranges) && OpScopes::end(ranges, sizes);
  });
}

// PyTorch's caching allocator handed out the block at `base` for use on `stream` of `device`
// (its size comes with the op's outputs, streamracePythonEndOp).
STREAMRACE_PYTHON_ENTRY streamracePythonBlockAlloc(unsigned long long base,
                                                   unsigned long long stream, int device) {
  return guarded("streamracePythonBlockAlloc", [&](const PythonApi&) {
    Recorder::get()->record("caching allocator block", BlockAlloc{base, 0, device, stream});
    return true;
  });
}

// torch's record_stream: the block at `base` is used on `stream` too.
STREAMRACE_PYTHON_ENTRY streamracePythonBlockStreamUse(unsigned long long base,
                                                       unsigned long long stream) {
  return guarded("streamracePythonBlockStreamUse", [&](const PythonApi&) {
    Recorder::get()->record("record_stream", BlockStreamUse{base, stream});
    return true;
  });
}

// The block at `base` went back to the cache; the caller's frames below its `skip` innermost
// are where (a tensor's last reference dropped, usually outside any op).
STREAMRACE_PYTHON_ENTRY streamracePythonBlockFree(unsigned long long base, int skip) {
  return guarded("streamracePythonBlockFree", [&](const PythonApi&) {
    OpScopes::begin(OpScopes::intern_name("tensor freed"), {},
                    PythonStacks::instance().capture(skip));
    Recorder::get()->record("tensor freed", BlockFree{base});
    return OpScopes::end({});
  });
}

// The calling thread reads or writes host memory itself (a CPU operator on pinned memory that
// device copies also touch).
STREAMRACE_PYTHON_ENTRY streamracePythonHostAccess(PyObjectPtr extents) {
  return guarded("streamracePythonHostAccess", [&](const PythonApi& python) {
    if (!read_ranges(python, extents, ranges)) return false;
    Recorder::get()->record("host access", HostAccess{ranges});
    return true;
  });
}

// The caller's Python stack below its `skip` innermost frames, as an id for
// streamracePythonBeginOpWithStack (0 for none): the ops the autograd engine runs on its own
// threads for a backward() call continue that call's stack.
STREAMRACE_PYTHON_ENTRY streamracePythonCaptureStack(int skip) {
  Recorder* tracer = Recorder::get();
  if (tracer == nullptr || PythonApi::get() == nullptr) return 0;
  try {
    return static_cast<int>(PythonStacks::instance().capture(skip));
  } catch (const std::exception& error) {
    tracer->disable(error.what());
    return 0;
  }
}

// streamracePythonBeginOp whose Python stack continues the stack `caller` from
// streamracePythonCaptureStack: the calling thread's own frames outside the libraries (a Python
// hook or autograd.Function the engine runs), then those of `caller`.
STREAMRACE_PYTHON_ENTRY streamracePythonBeginOpWithStack(PyObjectPtr name, PyObjectPtr extents,
                                                         int caller) {
  return guarded("streamracePythonBeginOpWithStack", [&](const PythonApi& python) {
    const char* text = python.unicode_as_utf8(name);
    if (text == nullptr || caller < 0 || !read_ranges(python, extents, ranges)) {
      python.err_clear();
      return false;
    }
    OpScopes::begin(
        OpScopes::intern_name(text), ranges,
        PythonStacks::instance().capture_continuing(0, static_cast<std::uint32_t>(caller)));
    return true;
  });
}
