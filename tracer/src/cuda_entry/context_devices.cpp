// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda_entry/context_devices.h"

#include "calling_thread.h"
#include "recorder.h"

#include <cuda.h>

#include <atomic>
#include <dlfcn.h>

namespace streamrace::tracer {

std::optional<DeviceId> current_context_device() {
  static constinit std::atomic<void*> next_query{nullptr};
  void* query = next_query.load(std::memory_order_relaxed);
  if (query == nullptr) {
    // A driver call has just returned, so the driver is loaded (privately, perhaps, by the
    // runtime that opened it).
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (driver == nullptr) return std::nullopt;
    query = dlsym(driver, "cuCtxGetDevice");
    dlclose(driver);
    if (query == nullptr) return std::nullopt;
    next_query.store(query, std::memory_order_relaxed);
  }
  const InsideLibraryCall untraced;
  CUdevice device = 0;
  if (reinterpret_cast<decltype(&::cuCtxGetDevice)>(query)(&device) != CUDA_SUCCESS)
    return std::nullopt;
  return static_cast<DeviceId>(device);
}

} // namespace streamrace::tracer
