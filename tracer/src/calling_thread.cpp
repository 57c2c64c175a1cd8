// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "calling_thread.h"

#include <ctime>

namespace streamrace::tracer {
namespace {

thread_local int library_call_depth = 0;

} // namespace

InsideLibraryCall::InsideLibraryCall() {
  ++library_call_depth;
}
InsideLibraryCall::~InsideLibraryCall() {
  --library_call_depth;
}
bool InsideLibraryCall::active() {
  return library_call_depth > 0;
}

std::uint64_t wall_clock_ns() {
  timespec time{};
  clock_gettime(CLOCK_REALTIME, &time);
  return static_cast<std::uint64_t>(time.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(time.tv_nsec);
}

} // namespace streamrace::tracer
