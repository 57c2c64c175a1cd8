// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The __device__ and __constant__ variables nvcc registers (__cudaRegisterVar), each given device
// memory the first time a program names it (cudaMemcpyToSymbol, cudaGetSymbolAddress, ...).
// Their initial values live only in device code the emulator cannot read, so they start zeroed.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>

namespace streamrace::emu {

struct DeviceSymbol {
  void* address;
  std::size_t size;
};

class SymbolTable {
public:
  static SymbolTable& instance();

  void registerVariable(const void* hostShadow, std::size_t size);
  // nullopt when `hostShadow` is not a registered variable or no device memory is left.
  std::optional<DeviceSymbol> resolve(const void* hostShadow);

private:
  struct Entry {
    std::size_t size = 0;
    void* address = nullptr;
  };
  std::mutex mutex_;
  std::map<const void*, Entry> byHostShadow_;
};

} // namespace streamrace::emu
