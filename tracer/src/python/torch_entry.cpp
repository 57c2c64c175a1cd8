// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The entry points of the Python package's compiled operator observer
// (python/streamrace/torch/observer.cpp): the op API of streamrace/op_extents.h, plus what only
// an observer inside PyTorch knows. It sees every operator from C++ (PyTorch's RecordFunction),
// usually on a thread that released the GIL for the operator, so the Python lines of an
// outermost op are read here, taking the GIL back only on a thread that runs Python.
#include "ops/op_scopes.h"
#include "ops/stated_extents.h"
#include "python/entry_points.h"
#include "python/python_api.h"
#include "recorder.h"
#include "stacks/python_stacks.h"

#include <utility>
#include <vector>

namespace streamrace::tracer {

namespace {

// The calling thread's Python frames outside the libraries, continuing `caller`; `caller` alone
// on a thread that never ran Python (the autograd engine's, unless a Python hook runs there).
std::uint32_t python_lines(std::uint32_t caller) {
  const PythonApi* python = PythonApi::get();
  if (python == nullptr || python->is_initialized() == 0) return caller;
  if (python->gil_state_check() == 1) return PythonStacks::instance().capture_continuing(0, caller);
  if (python->gil_state_get_this_thread_state() == nullptr) return caller;
  const int state = python->gil_state_ensure();
  const std::uint32_t stack = PythonStacks::instance().capture_continuing(0, caller);
  python->gil_state_release(state);
  return stack;
}

thread_local std::vector<Access> ranges;

} // namespace

} // namespace streamrace::tracer

using namespace streamrace;
using namespace streamrace::tracer;

#define STREAMRACE_TORCH_ENTRY extern "C" __attribute__((visibility("default"))) int

// Opens an op; `caller` (a stack from streamracePythonCaptureStack, or 0) is where the work
// was asked for when the calling thread runs it for another one: the backward() call whose
// operators the autograd engine runs. An op nested in another keeps the enclosing op's lines.
STREAMRACE_TORCH_ENTRY streamraceTorchBeginOp(const char* name, const streamrace_extent* extents,
                                              size_t count, unsigned caller) {
  return run_entry_point("streamraceTorchBeginOp", [&](Recorder&) {
    if (name == nullptr || !read_stated_extents(extents, count, ranges)) return false;
    OpScopes::begin(OpScopes::intern_name(name), ranges,
                    OpScopes::inside_op() ? 0 : python_lines(caller));
    return true;
  });
}

// Closes the innermost op, adding `extents` (its new outputs); `blocks` holds `block_count`
// (address, size) pairs: the caching-allocator blocks of those outputs.
STREAMRACE_TORCH_ENTRY streamraceTorchEndOp(const streamrace_extent* extents, size_t count,
                                            const uint64_t* blocks, size_t block_count) {
  return run_entry_point("streamraceTorchEndOp", [&](Recorder&) {
    if (block_count > 0 && blocks == nullptr) return false;
    std::vector<std::pair<Address, std::uint64_t>> sizes;
    sizes.reserve(block_count);
    for (std::size_t i = 0; i < block_count; ++i)
      sizes.emplace_back(blocks[2 * i], blocks[2 * i + 1]);
    return read_stated_extents(extents, count, ranges) && OpScopes::end(ranges, sizes);
  });
}

// The calling thread reads or writes host memory itself: a CPU operator on pinned memory that
// device copies also touch.
STREAMRACE_TORCH_ENTRY streamraceTorchHostAccess(const streamrace_extent* extents, size_t count) {
  return run_entry_point("streamraceTorchHostAccess", [&](Recorder& tracer) {
    if (!read_stated_extents(extents, count, ranges)) return false;
    tracer.record("host access", HostAccess{ranges});
    return true;
  });
}

// torch's record_stream: the block at `base` is used on `stream` too.
STREAMRACE_TORCH_ENTRY streamraceTorchBlockStreamUse(uint64_t base, uint64_t stream) {
  return run_entry_point("streamraceTorchBlockStreamUse", [&](Recorder& tracer) {
    tracer.record("record_stream", BlockStreamUse{base, stream});
    return true;
  });
}

// PyTorch's caching allocator handed out the block at `base` for use on `stream` of `device`
// (its size comes with the op's outputs, streamraceTorchEndOp). Called under the allocator's
// lock: never waits for anything.
STREAMRACE_TORCH_ENTRY streamraceTorchBlockAlloc(uint64_t base, uint64_t stream, int device) {
  return run_entry_point("streamraceTorchBlockAlloc", [&](Recorder& tracer) {
    tracer.record_from_framework("caching allocator block", BlockAlloc{base, 0, device, stream});
    return true;
  });
}
