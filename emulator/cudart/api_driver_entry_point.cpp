// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// cudaGetDriverEntryPointByVersion: the driver function of a name, as the driver library itself
// answers cuGetProcAddress. Libraries built against the runtime (PyTorch's c10, NCCL, cuBLAS)
// reach the driver this way instead of linking libcuda.so.1.
#include <cuda.h>
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <dlfcn.h>

#include "api_tracing.h"

namespace {

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t,
                                    CUdriverProcAddressQueryResult*);

// The driver library's own lookup, from libcuda.so.1 as the dynamic linker finds it.
GetProcAddress driverLookup() {
  static const GetProcAddress lookup = []() -> GetProcAddress {
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    return driver != nullptr
               ? reinterpret_cast<GetProcAddress>(dlsym(driver, "cuGetProcAddress_v2"))
               : nullptr;
  }();
  return lookup;
}

cudaError_t driverEntryPoint(const char* symbol, void** function, unsigned version,
                             unsigned long long flags, cudaDriverEntryPointQueryResult* status) {
  if (symbol == nullptr || function == nullptr) {
    return cudaErrorInvalidValue;
  }
  GetProcAddress lookup = driverLookup();
  if (lookup == nullptr) {
    return cudaErrorInsufficientDriver;
  }
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  const CUresult result = lookup(symbol, function, static_cast<int>(version), flags, &found);
  if (status != nullptr) {
    *status = found == CU_GET_PROC_ADDRESS_SUCCESS ? cudaDriverEntryPointSuccess
              : found == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                  ? cudaDriverEntryPointVersionNotSufficent
                  : cudaDriverEntryPointSymbolNotFound;
  }
  // Like the runtime, a name the driver lacks is a successful call reporting "not found" (or an
  // error when the caller gave no status to report it in).
  if (result == CUDA_SUCCESS || (result == CUDA_ERROR_NOT_FOUND && status != nullptr)) {
    return cudaSuccess;
  }
  return cudaErrorSymbolNotFound;
}

} // namespace

extern "C" {

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr,
                                             unsigned int cudaVersion, unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult* driverStatus) {
  STREAMRACE_EMU_TRACED(cudaGetDriverEntryPointByVersion, v12050,
                        driverEntryPoint(symbol, funcPtr, cudaVersion, flags, driverStatus), symbol,
                        funcPtr, cudaVersion, flags, driverStatus);
}

} // extern "C"
