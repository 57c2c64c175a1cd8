// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The definition a function the preloaded tracer defines forwards to: the next one in lookup
// order, normally the C library's.
#pragma once

#include <atomic>
#include <dlfcn.h>

namespace streamrace::tracer {

// Looked up on first use into a constant-initialized slot: a guarded static could itself take a
// lock on its first use, from inside the very function being defined. `version`, when given, is
// tried first (condition variables have two versions in glibc; programs link the current one).
inline void* next_definition(std::atomic<void*>& slot, const char* name,
                             const char* version = nullptr) {
  void* found = slot.load(std::memory_order_relaxed);
  if (found != nullptr) return found;
  found = version != nullptr ? dlvsym(RTLD_NEXT, name, version) : nullptr;
  if (found == nullptr) found = dlsym(RTLD_NEXT, name);
  slot.store(found, std::memory_order_relaxed);
  return found;
}

} // namespace streamrace::tracer

// Declares `real`, the next definition of `name`, typed as the C library declares it.
#define STREAMRACE_NEXT(name, ...)                                                                 \
  static constinit std::atomic<void*> next_##name{nullptr};                                        \
  const auto real = reinterpret_cast<decltype(&::name)>(                                           \
      streamrace::tracer::next_definition(next_##name, #name __VA_OPT__(, ) __VA_ARGS__))
