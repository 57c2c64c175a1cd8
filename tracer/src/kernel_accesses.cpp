// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "kernel_accesses.h"

namespace streamrace::tracer {

void KernelAccessResolver::observe(const Payload& payload) {
  if (const auto* alloc = std::get_if<Alloc>(&payload)) {
    if (alloc->base != 0 && alloc->size != 0) live_[alloc->base] = alloc->size;
  } else if (const auto* free = std::get_if<Free>(&payload)) {
    live_.erase(free->base);
  }
}

void KernelAccessResolver::resolve(std::span<const KernelPointer> pointers,
                                   std::vector<Access>& out) const {
  for (const KernelPointer& pointer : pointers) {
    auto it = live_.upper_bound(pointer.address);
    if (it == live_.begin()) continue;
    --it;
    const Address end = it->first + it->second;
    if (pointer.address >= end) continue;
    std::uint64_t size = end - pointer.address;
    if (pointer.bytes != 0 && pointer.bytes < size) size = pointer.bytes;
    out.push_back(Access{pointer.address, size, pointer.mode, pointer.extent});
  }
}

} // namespace streamrace::tracer
