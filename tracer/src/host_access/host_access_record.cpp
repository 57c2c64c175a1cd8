// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_access/host_access_record.h"

#include "calling_thread.h"
#include "host_threads/host_function_runs.h"
#include "host_threads/host_threads.h"
#include "recorder.h"

#include <algorithm>

namespace streamrace::tracer {

namespace {

// Whether the touching code, or the function that called it, is a runtime library's.
bool in_runtime_library_code(const RawStack& stack) {
  for (int i = 0; i < std::min(stack.depth, 2); ++i)
    if (in_runtime_library(stack.frames[static_cast<std::size_t>(i)])) return true;
  return false;
}

// A host function's frames end where the runtime's thread called it (through the tracer's
// trampoline): what lies below is the runtime's, and the same for every function it runs.
void keep_host_function_frames(RawStack& stack) {
  for (int i = 1; i < stack.depth; ++i)
    if (in_runtime_library(stack.frames[static_cast<std::size_t>(i)])) {
      stack.depth = i;
      return;
    }
}

// Whether the access is the program's own: a thread that takes part (docs/semantics.md rule 16),
// outside the tracer and any CUDA call (the runtime's accesses are its calls' events), in code
// that is not a runtime library's (host_threads.h: a runtime's worker standing in for DMA;
// PyTorch's CPU operators, which the streamrace.torch package states as host accesses itself).
bool program_access(const RawStack& stack) {
  return is_gpu_thread() && !InsideTracer::active() && !InsideLibraryCall::active() &&
         !inside_cuda_runtime_call() && !in_runtime_library_code(stack);
}

} // namespace

void capture_stack_from(void* code, RawStack& stack) {
  capture_stack(stack);
  const auto* begin = stack.frames.begin();
  const auto* end = begin + stack.depth;
  const auto* at = std::find(begin, end, code);
  if (at == end) {
    stack.frames[0] = code;
    stack.depth = 1;
    return;
  }
  std::copy(at, end, stack.frames.begin());
  stack.depth = static_cast<int>(end - at);
}

void record_watched_access(Address address, std::uint64_t size, bool write, RawStack& stack) {
  // A host function the runtime runs is the program's code too, but an op of its stream.
  if (HostFunctionRun* run = running_host_function(); run != nullptr) {
    // Its caller is the trampoline, in this library: only the touching code itself counts.
    if (in_runtime_library(stack.frames[0])) return;
    keep_host_function_frames(stack);
    run->record(address, size, write, stack);
    return;
  }
  if (Recorder* tracer = Recorder::running(); tracer != nullptr && program_access(stack))
    tracer->record_host_access(address, size, write, stack);
}

} // namespace streamrace::tracer
