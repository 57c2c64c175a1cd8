// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every byte range the emulated runtime handed out or was told about: device memory (one address
// arena per device, so an address tells its device), pinned and registered host memory, managed
// memory and stream-ordered pool memory. Answers "what is this pointer" for copies, pointer
// attributes and bounds checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>

namespace streamrace::emu {

enum class MemoryKind { Device, PoolDevice, Pinned, Registered, Managed };

struct Allocation {
  std::uintptr_t base = 0;
  std::size_t size = 0;
  MemoryKind kind = MemoryKind::Device;
  int device = 0;
  unsigned flags = 0;
  // Where the emulated device reaches these bytes (host_mapping.h); 0: at `base` itself.
  std::uintptr_t deviceView = 0;

  bool contains(const void* pointer, std::size_t bytes) const {
    auto address = reinterpret_cast<std::uintptr_t>(pointer);
    return address >= base && address - base <= size && bytes <= size - (address - base);
  }
  bool isDeviceMemory() const {
    return kind == MemoryKind::Device || kind == MemoryKind::PoolDevice;
  }
  bool isHostMemory() const { return kind == MemoryKind::Pinned || kind == MemoryKind::Registered; }
};

// One contiguous reservation of address space standing in for a device's memory. First-fit
// allocation; freed ranges are given back to the operating system.
class DeviceArena {
public:
  DeviceArena(std::size_t capacity);
  ~DeviceArena();
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  void* allocate(std::size_t bytes);
  void release(void* pointer, std::size_t bytes);
  std::size_t capacity() const { return capacity_; }
  std::size_t bytesInUse() const;

  static std::size_t roundedSize(std::size_t bytes);

private:
  std::byte* base_ = nullptr;
  std::size_t capacity_ = 0;
  mutable std::mutex mutex_;
  std::map<std::size_t, std::size_t> freeRanges_; // offset -> length
  std::size_t inUse_ = 0;
};

class MemoryRegistry {
public:
  void add(const Allocation& allocation);
  // The allocation starting exactly at `base`, removed.
  std::optional<Allocation> removeStartingAt(const void* base);
  // The allocation containing `pointer`, if any.
  std::optional<Allocation> find(const void* pointer) const;
  std::optional<Allocation> startingAt(const void* base) const;
  // Where the emulated device reaches the byte at `pointer`: through the second mapping of
  // pinned and managed memory, else at `pointer` itself.
  void* deviceAddress(const void* pointer) const;
  // Whether any known range shares a byte with [pointer, pointer + bytes).
  bool overlaps(const void* pointer, std::size_t bytes) const;
  // The bytes of every live allocation of this kind on the device.
  std::size_t bytesOf(MemoryKind kind, int device) const;

private:
  mutable std::shared_mutex mutex_;
  std::map<std::uintptr_t, Allocation> byBase_;
};

} // namespace streamrace::emu
