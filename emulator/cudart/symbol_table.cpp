// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "symbol_table.h"

#include <cstring>

#include "runtime_state.h"

namespace streamrace::emu {

namespace {
// Device variables live on the first device: the emulator keeps one copy per process.
constexpr int kSymbolDevice = 0;
} // namespace

SymbolTable& SymbolTable::instance() {
  static SymbolTable table;
  return table;
}

void SymbolTable::registerVariable(const void* hostShadow, std::size_t size) {
  std::lock_guard lock(mutex_);
  byHostShadow_[hostShadow].size = size;
}

std::optional<DeviceSymbol> SymbolTable::resolve(const void* hostShadow) {
  std::lock_guard lock(mutex_);
  auto it = byHostShadow_.find(hostShadow);
  if (it == byHostShadow_.end()) {
    return std::nullopt;
  }
  Entry& entry = it->second;
  if (entry.address == nullptr) {
    Runtime& runtime = Runtime::instance();
    void* memory = runtime.device(kSymbolDevice).arena.allocate(entry.size);
    if (memory == nullptr) {
      return std::nullopt;
    }
    std::memset(memory, 0, entry.size);
    runtime.memory.add(Allocation{reinterpret_cast<std::uintptr_t>(memory), entry.size,
                                  MemoryKind::Device, kSymbolDevice, 0});
    entry.address = memory;
  }
  return DeviceSymbol{entry.address, entry.size};
}

} // namespace streamrace::emu
