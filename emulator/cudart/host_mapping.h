// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Pinned and managed memory mapped twice: once for the program, once for the emulated device. A
// GPU reaches host memory by DMA, past the page protections the program (or a tool watching its
// loads and stores) puts on its own mapping; the emulated device's copies, sets and kernel
// arguments go through the second mapping of the same pages to do the same.
#pragma once

#include <cstddef>
#include <optional>

namespace streamrace::emu {

struct HostMapping {
  void* program = nullptr;
  void* device = nullptr;
};

// `bytes` (rounded up to whole pages) of zeroed shared memory, mapped twice; nothing when the
// system refuses.
std::optional<HostMapping> mapHostMemory(std::size_t bytes);
void unmapHostMemory(const HostMapping& mapping, std::size_t bytes);

} // namespace streamrace::emu
