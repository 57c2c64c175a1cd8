// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The entry points of the Python package (python/streamrace/torch): the op API of
// streamrace/op_extents.h taking Python lists, so an op costs the package one call at its start
// and one at its end, and capturing the Python frames of the op's caller. Called through
// ctypes.PyDLL, with the GIL held. Ranges come as a flat list of integers, three per range:
// address, size in bytes, and the mode (1 read, 2 write, 3 read-write) plus 4 when the range only
// covers the bytes (a view with gaps).
#include "op_scopes.h"
#include "python_api.h"
#include "python_stacks.h"
#include "tracer.h"

#include <cstdio>
#include <string>
#include <vector>

namespace streamrace::tracer {

namespace {

constexpr unsigned long long kCoveringFlag = 4;

// False (and one warning) when the list is not what the package sends.
bool read_ranges(const PythonApi& python, PyObjectPtr list, std::vector<Access>& out) {
  out.clear();
  const std::ptrdiff_t count = python.list_size(list);
  if (count < 0 || count % 3 != 0) {
    python.err_clear();
    return false;
  }
  for (std::ptrdiff_t i = 0; i < count; i += 3) {
    const unsigned long long begin =
        python.long_as_unsigned_long_long(python.list_get_item(list, i));
    const unsigned long long size =
        python.long_as_unsigned_long_long(python.list_get_item(list, i + 1));
    const unsigned long long mode =
        python.long_as_unsigned_long_long(python.list_get_item(list, i + 2));
    if (python.err_occurred() != nullptr || (mode & 3) == 0) {
      python.err_clear();
      return false;
    }
    out.push_back(Access{begin, size,
                         (mode & 3) == 1   ? AccessMode::Read
                         : (mode & 3) == 2 ? AccessMode::Write
                                           : AccessMode::ReadWrite,
                         (mode & kCoveringFlag) != 0 ? Extent::Approximate : Extent::Exact});
  }
  return true;
}

template <typename Body> int guarded(const char* what, Body&& body) {
  Tracer* tracer = Tracer::get();
  const PythonApi* python = PythonApi::get();
  if (tracer == nullptr || python == nullptr) return 0;
  try {
    if (body(*python)) return 1;
    std::fprintf(stderr, "streamrace: warning: %s: malformed arguments ignored\n", what);
    return -1;
  } catch (const std::exception& error) {
    tracer->disable(error.what());
    return 0;
  }
}

thread_local std::vector<Access> ranges;

} // namespace

} // namespace streamrace::tracer

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

// Closes the innermost op, adding the ranges of `extents` (its new outputs).
STREAMRACE_PYTHON_ENTRY streamracePythonEndOp(PyObjectPtr extents) {
  return guarded("streamracePythonEndOp", [&](const PythonApi& python) {
    return read_ranges(python, extents, ranges) && OpScopes::end(ranges);
  });
}
