// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What an entry point asks about the thread that calls it, before it records anything.
#pragma once

#include <cstdint>

namespace streamrace::tracer {

// Marks the calling thread as inside an intercepted library call (NCCL) for the guard's
// lifetime, so the CUDA calls the library makes on its own behalf are not traced twice.
class InsideLibraryCall {
public:
  InsideLibraryCall();
  ~InsideLibraryCall();
  InsideLibraryCall(const InsideLibraryCall&) = delete;
  InsideLibraryCall& operator=(const InsideLibraryCall&) = delete;
  static bool active();
};

// Whether the calling thread is inside a CUDA runtime call (between its CUPTI enter and exit
// callbacks): what the runtime does there, its own locking included, is the runtime's. The
// CUPTI callbacks keep track (cuda_entry/cupti_attach.cpp).
bool inside_cuda_runtime_call();

// The time events are stamped with: ns since the epoch (traces of several hosts merge by it).
std::uint64_t wall_clock_ns();

} // namespace streamrace::tracer
