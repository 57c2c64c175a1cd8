// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The kernels this process knows: the host stubs nvcc registered with their device names
// (__cudaRegisterFunction), and the CPU implementations programs registered for some of them.
#pragma once

#include "kernel_parameters.h"

#include <streamrace_emulator/kernel_registry.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace streamrace::emu {

struct KernelRecord {
  const void* hostFunction = nullptr;
  std::string deviceName;
  StreamraceEmuKernelBody body = nullptr;
  std::vector<std::size_t> argumentSizes;
  bool registeredByNvcc = false;
  bool reportedAsNoOp = false;
};

// What a launch needs to know, copied out under the table's lock.
struct KernelLaunchInfo {
  const KernelRecord* handle; // the kernel's CUfunction (and cudaKernel_t, cudaFunction_t)
  const void* hostFunction;
  std::string deviceName;
  StreamraceEmuKernelBody body;
  std::vector<std::size_t> argumentSizes;
  bool firstNoOpLaunch;
};

class KernelTable {
public:
  static KernelTable& instance();

  void registerDeviceFunction(const void* hostFunction, const char* deviceName);
  void registerCpuBody(const void* hostFunction, StreamraceEmuKernelBody body,
                       std::vector<std::size_t> sizes);
  // `func`, as the runtime's calls take it: a host stub, or a kernel handle (cudaKernel_t) cast
  // to a pointer, which is what a `<<<>>>` launch hands the runtime and CUPTI.
  // The kernel's record, which is the handle __cudaGetKernel hands out for a host stub.
  KernelRecord* handleFor(const void* func);
  std::optional<KernelLaunchInfo> launchInfoByHostFunction(const void* func);
  std::optional<KernelLaunchInfo> launchInfoByHandle(const KernelRecord* handle);
  // The record behind a handle this table gave out, or null.
  const KernelRecord* recordByHandle(const void* handle);
  // A fat binary nvcc registered, read for layouts only when a kernel's name cannot tell its own
  // (PyTorch registers hundreds of megabytes of device code, most of it never launched here).
  void registerFatBinary(const void* fatCubin);
  // The kernel's parameter layout: from its CPU registration's argument sizes, else from its
  // device name, else from what the fat binaries' device code states. Nothing for an unknown
  // host function or a layout none can tell.
  std::optional<std::vector<ParameterSlot>> parameterLayout(const void* func);

private:
  KernelRecord& obtainLocked(const void* hostFunction);
  KernelRecord* findLocked(const void* func);
  std::optional<KernelLaunchInfo> launchInfoLocked(KernelRecord& record);

  std::mutex mutex_;
  std::map<const void*, std::unique_ptr<KernelRecord>> byHostFunction_;
  // The records again, keyed by the handle (their address) every by-handle launch validates:
  // PyTorch registers thousands of kernels, too many to search at each launch.
  std::unordered_map<const void*, KernelRecord*> byHandle_;
  std::vector<const void*> unreadFatBinaries_;
  std::map<std::string, std::vector<ParameterSlot>> statedLayouts_; // by device name
};

} // namespace streamrace::emu
