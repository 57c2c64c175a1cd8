// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "kernels/kernel_accesses.h"

#include <algorithm>
#include <iterator>

namespace streamrace::tracer {

void KernelAccessResolver::observe(const Payload& payload) {
  if (const auto* alloc = std::get_if<Alloc>(&payload)) {
    if (alloc->base != 0 && alloc->size != 0) live_[alloc->base] = alloc->size;
  } else if (const auto* free = std::get_if<Free>(&payload)) {
    auto freed = live_.find(free->base);
    if (freed == live_.end()) return;
    // A segment given back to the device takes the blocks the cache carved from it along.
    blocks_.erase(blocks_.lower_bound(freed->first),
                  blocks_.lower_bound(freed->first + freed->second));
    live_.erase(freed);
  } else if (const auto* block = std::get_if<BlockAlloc>(&payload)) {
    if (block->size != 0) blocks_[block->base] = block->size;
  } else if (const auto* block_free = std::get_if<BlockFree>(&payload)) {
    blocks_.erase(block_free->base);
  }
}

Address KernelAccessResolver::block_limit(Address address, Address allocation_end) const {
  auto next = blocks_.upper_bound(address);
  if (next != blocks_.begin()) {
    const auto& [base, size] = *std::prev(next);
    if (address < base + size) return std::min(allocation_end, base + size);
  }
  return next == blocks_.end() ? allocation_end : std::min(allocation_end, next->first);
}

void KernelAccessResolver::resolve(std::span<const KernelPointer> pointers,
                                   std::vector<Access>& out) const {
  for (const KernelPointer& pointer : pointers) {
    auto it = live_.upper_bound(pointer.address);
    if (it == live_.begin()) continue;
    --it;
    Address end = it->first + it->second;
    if (pointer.address >= end) continue;
    if (pointer.bytes == 0) end = block_limit(pointer.address, end);
    std::uint64_t size = end - pointer.address;
    if (pointer.bytes != 0 && pointer.bytes < size) size = pointer.bytes;
    out.push_back(Access{pointer.address, size, pointer.mode, pointer.extent});
  }
}

} // namespace streamrace::tracer
