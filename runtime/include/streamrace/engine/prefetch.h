// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Starting a cache line's fetch ahead of its use: the engine knows the events after the one
// it runs, and overlaps their cache misses with its work.
#pragma once

namespace streamrace {

inline void prefetch(const void* address) {
#if defined(__x86_64__)
  // GCC 12 at -O2 deleted the warming calls built on __builtin_prefetch (seen in the
  // disassembly), as if they did nothing: an asm statement it must keep.
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(address)));
#else
  __builtin_prefetch(address);
#endif
}

} // namespace streamrace
