// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "memory_registry.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace streamrace::emu {

namespace {
// Matches the real allocator's guarantee (256-byte alignment for cudaMalloc).
constexpr std::size_t kAllocationGranule = 256;
// Ranges at least this large are handed back to the OS on release.
constexpr std::size_t kReturnToSystemThreshold = std::size_t{1} << 16;
} // namespace

std::size_t DeviceArena::roundedSize(std::size_t bytes) {
  std::size_t nonZero = bytes == 0 ? 1 : bytes;
  return (nonZero + kAllocationGranule - 1) / kAllocationGranule * kAllocationGranule;
}

DeviceArena::DeviceArena(std::size_t capacity) : capacity_(capacity) {
  void* mapping = mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED) {
    throw std::bad_alloc();
  }
  base_ = static_cast<std::byte*>(mapping);
  freeRanges_.emplace(0, capacity);
}

DeviceArena::~DeviceArena() {
  munmap(base_, capacity_);
}

void* DeviceArena::allocate(std::size_t bytes) {
  std::size_t size = roundedSize(bytes);
  std::lock_guard lock(mutex_);
  for (auto it = freeRanges_.begin(); it != freeRanges_.end(); ++it) {
    auto [offset, length] = *it;
    if (length < size) {
      continue;
    }
    freeRanges_.erase(it);
    if (length > size) {
      freeRanges_.emplace(offset + size, length - size);
    }
    inUse_ += size;
    return base_ + offset;
  }
  return nullptr;
}

void DeviceArena::release(void* pointer, std::size_t bytes) {
  std::size_t size = roundedSize(bytes);
  std::size_t offset = static_cast<std::size_t>(static_cast<std::byte*>(pointer) - base_);
  if (size >= kReturnToSystemThreshold) {
    madvise(pointer, size, MADV_DONTNEED);
  }
  std::lock_guard lock(mutex_);
  inUse_ -= size;
  auto [it, inserted] = freeRanges_.emplace(offset, size);
  if (auto next = std::next(it);
      next != freeRanges_.end() && it->first + it->second == next->first) {
    it->second += next->second;
    freeRanges_.erase(next);
  }
  if (it != freeRanges_.begin()) {
    auto previous = std::prev(it);
    if (previous->first + previous->second == it->first) {
      previous->second += it->second;
      freeRanges_.erase(it);
    }
  }
}

std::size_t DeviceArena::bytesInUse() const {
  std::lock_guard lock(mutex_);
  return inUse_;
}

void MemoryRegistry::add(const Allocation& allocation) {
  std::unique_lock lock(mutex_);
  byBase_[allocation.base] = allocation;
}

std::optional<Allocation> MemoryRegistry::removeStartingAt(const void* base) {
  std::unique_lock lock(mutex_);
  auto it = byBase_.find(reinterpret_cast<std::uintptr_t>(base));
  if (it == byBase_.end()) {
    return std::nullopt;
  }
  Allocation removed = it->second;
  byBase_.erase(it);
  return removed;
}

std::optional<Allocation> MemoryRegistry::find(const void* pointer) const {
  auto address = reinterpret_cast<std::uintptr_t>(pointer);
  std::shared_lock lock(mutex_);
  auto it = byBase_.upper_bound(address);
  if (it == byBase_.begin()) {
    return std::nullopt;
  }
  --it;
  const Allocation& candidate = it->second;
  // A zero-byte allocation still owns its base address.
  if (address - candidate.base < (candidate.size == 0 ? 1 : candidate.size)) {
    return candidate;
  }
  return std::nullopt;
}

void* MemoryRegistry::deviceAddress(const void* pointer) const {
  const std::optional<Allocation> allocation = find(pointer);
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  if (!allocation || allocation->deviceView == 0) {
    return const_cast<void*>(pointer);
  }
  return reinterpret_cast<void*>(allocation->deviceView + (address - allocation->base));
}

std::size_t MemoryRegistry::bytesOf(MemoryKind kind, int device) const {
  std::shared_lock lock(mutex_);
  std::size_t total = 0;
  for (const auto& [base, allocation] : byBase_) {
    if (allocation.kind == kind && allocation.device == device) {
      total += allocation.size;
    }
  }
  return total;
}

bool MemoryRegistry::overlaps(const void* pointer, std::size_t bytes) const {
  auto begin = reinterpret_cast<std::uintptr_t>(pointer);
  std::uintptr_t end = begin + bytes;
  std::shared_lock lock(mutex_);
  auto it = byBase_.lower_bound(end);
  if (it == byBase_.begin()) {
    return false;
  }
  --it;
  const Allocation& candidate = it->second;
  return candidate.base + std::max<std::size_t>(candidate.size, 1) > begin;
}

std::optional<Allocation> MemoryRegistry::startingAt(const void* base) const {
  std::shared_lock lock(mutex_);
  auto it = byBase_.find(reinterpret_cast<std::uintptr_t>(base));
  if (it == byBase_.end()) {
    return std::nullopt;
  }
  return it->second;
}

} // namespace streamrace::emu
