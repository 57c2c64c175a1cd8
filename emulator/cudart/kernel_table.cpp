// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "kernel_table.h"

#include "fatbinary_layouts.h"

namespace streamrace::emu {

KernelTable& KernelTable::instance() {
  static KernelTable table;
  return table;
}

KernelRecord& KernelTable::obtainLocked(const void* hostFunction) {
  std::unique_ptr<KernelRecord>& slot = byHostFunction_[hostFunction];
  if (!slot) {
    slot = std::make_unique<KernelRecord>();
    slot->hostFunction = hostFunction;
    byHandle_.emplace(slot.get(), slot.get());
  }
  return *slot;
}

void KernelTable::registerDeviceFunction(const void* hostFunction, const char* deviceName) {
  std::lock_guard lock(mutex_);
  KernelRecord& record = obtainLocked(hostFunction);
  record.deviceName = deviceName != nullptr ? deviceName : "";
  record.registeredByNvcc = true;
}

void KernelTable::registerCpuBody(const void* hostFunction, StreamraceEmuKernelBody body,
                                  std::vector<std::size_t> sizes) {
  std::lock_guard lock(mutex_);
  KernelRecord& record = obtainLocked(hostFunction);
  record.body = body;
  record.argumentSizes = std::move(sizes);
}

KernelRecord* KernelTable::findLocked(const void* func) {
  if (auto stub = byHostFunction_.find(func); stub != byHostFunction_.end()) {
    return stub->second.get();
  }
  auto handle = byHandle_.find(func);
  return handle == byHandle_.end() ? nullptr : handle->second;
}

KernelRecord* KernelTable::handleFor(const void* func) {
  std::lock_guard lock(mutex_);
  return findLocked(func);
}

std::optional<KernelLaunchInfo> KernelTable::launchInfoLocked(KernelRecord& record) {
  if (!record.registeredByNvcc && record.body == nullptr) {
    return std::nullopt;
  }
  bool firstNoOp = record.body == nullptr && !record.reportedAsNoOp;
  if (firstNoOp) {
    record.reportedAsNoOp = true;
  }
  return KernelLaunchInfo{&record,     record.hostFunction,  record.deviceName,
                          record.body, record.argumentSizes, firstNoOp};
}

std::optional<KernelLaunchInfo> KernelTable::launchInfoByHostFunction(const void* func) {
  std::lock_guard lock(mutex_);
  KernelRecord* record = findLocked(func);
  if (record == nullptr) {
    return std::nullopt;
  }
  return launchInfoLocked(*record);
}

std::optional<KernelLaunchInfo> KernelTable::launchInfoByHandle(const KernelRecord* handle) {
  std::lock_guard lock(mutex_);
  auto it = byHandle_.find(handle);
  if (it == byHandle_.end()) {
    return std::nullopt;
  }
  return launchInfoLocked(*it->second);
}

const KernelRecord* KernelTable::recordByHandle(const void* handle) {
  std::lock_guard lock(mutex_);
  auto it = byHandle_.find(handle);
  return it == byHandle_.end() ? nullptr : it->second;
}

std::optional<std::vector<ParameterSlot>> KernelTable::parameterLayout(const void* func) {
  std::lock_guard lock(mutex_);
  const KernelRecord* found = findLocked(func);
  if (found == nullptr) {
    return std::nullopt;
  }
  const KernelRecord& record = *found;
  if (record.body != nullptr) {
    return layoutFromSizes(record.argumentSizes);
  }
  if (auto layout = layoutFromMangledName(record.deviceName)) {
    return layout;
  }
  for (const void* fatCubin : unreadFatBinaries_) {
    statedLayouts_.merge(parameterLayoutsIn(fatCubin));
  }
  unreadFatBinaries_.clear();
  if (auto stated = statedLayouts_.find(record.deviceName); stated != statedLayouts_.end()) {
    return stated->second;
  }
  return std::nullopt;
}

void KernelTable::registerFatBinary(const void* fatCubin) {
  std::lock_guard lock(mutex_);
  unreadFatBinaries_.push_back(fatCubin);
}

} // namespace streamrace::emu
