// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Questions programs and libraries (CUB, Thrust) ask about kernels before launching them:
// attributes, parameter layout, cache and shared-memory settings, occupancy.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include "api_tracing.h"
#include "kernel_attributes.h"
#include "kernel_table.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

bool knownKernel(const void* func) {
  return KernelTable::instance().handleFor(func) != nullptr;
}

cudaError_t functionAttributes(cudaFuncAttributes* attr, const void* func) {
  if (attr == nullptr) {
    return cudaErrorInvalidValue;
  }
  if (!knownKernel(func)) {
    return cudaErrorInvalidDeviceFunction;
  }
  *attr = emulatedKernelAttributes();
  return cudaSuccess;
}

cudaError_t acceptFunctionSetting(const void* func) {
  return knownKernel(func) ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

// A cudaKernel_t is the kernel's record (what __cudaGetKernel hands out).
cudaError_t acceptKernelSetting(cudaKernel_t kernel, int device) {
  if (KernelTable::instance().recordByHandle(kernel) == nullptr) {
    return cudaErrorInvalidDeviceFunction;
  }
  return Runtime::instance().validDevice(device) ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t occupancy(int* numBlocks, const void* func, int blockSize) {
  if (numBlocks == nullptr || blockSize <= 0) {
    return cudaErrorInvalidValue;
  }
  if (!knownKernel(func)) {
    return cudaErrorInvalidDeviceFunction;
  }
  *numBlocks = activeBlocksPerMultiprocessor(blockSize);
  return cudaSuccess;
}

// The documented codes: cudaErrorInvalidValue for an index past the last parameter (and, here,
// for a kernel whose layout the emulator cannot tell); an unknown function is not a kernel.
cudaError_t parameterInfo(const void* func, size_t paramIndex, size_t* paramOffset,
                          size_t* paramSize) {
  if (paramOffset == nullptr || paramSize == nullptr) {
    return cudaErrorInvalidValue;
  }
  if (!knownKernel(func)) {
    return cudaErrorInvalidDeviceFunction;
  }
  const auto layout = KernelTable::instance().parameterLayout(func);
  if (!layout || paramIndex >= layout->size()) {
    return cudaErrorInvalidValue;
  }
  *paramOffset = (*layout)[paramIndex].offset;
  *paramSize = (*layout)[paramIndex].size;
  return cudaSuccess;
}

// The kernel's record is its cudaFunction_t, the CUfunction the driver stand-in launches.
cudaError_t functionBySymbol(cudaFunction_t* functionPtr, const void* symbolPtr) {
  if (functionPtr == nullptr) {
    return cudaErrorInvalidValue;
  }
  KernelRecord* record = KernelTable::instance().handleFor(symbolPtr);
  if (record == nullptr) {
    return cudaErrorInvalidDeviceFunction;
  }
  *functionPtr = reinterpret_cast<cudaFunction_t>(record);
  return cudaSuccess;
}

} // namespace

extern "C" {

// The `<<<>>>` entry point (api_launch.cpp): the public call answers as it does.
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* hostFunction);

cudaError_t cudaGetFuncBySymbol(cudaFunction_t* functionPtr, const void* symbolPtr) {
  STREAMRACE_EMU_TRACED(cudaGetFuncBySymbol, v11000, functionBySymbol(functionPtr, symbolPtr),
                        functionPtr, symbolPtr);
}

cudaError_t cudaGetKernel(cudaKernel_t* kernelPtr, const void* entryFuncAddr) {
  STREAMRACE_EMU_TRACED(cudaGetKernel, v12000, __cudaGetKernel(kernelPtr, entryFuncAddr), kernelPtr,
                        entryFuncAddr);
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  STREAMRACE_EMU_TRACED(cudaFuncGetAttributes, v3020, functionAttributes(attr, func), attr, func);
}

cudaError_t cudaFuncGetParamInfo(const void* func, size_t paramIndex, size_t* paramOffset,
                                 size_t* paramSize) {
  STREAMRACE_EMU_TRACED(cudaFuncGetParamInfo, v12040,
                        parameterInfo(func, paramIndex, paramOffset, paramSize), func, paramIndex,
                        paramOffset, paramSize);
}

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  STREAMRACE_EMU_TRACED(cudaFuncSetAttribute, v9000, acceptFunctionSetting(func), func, attr,
                        value);
}

cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr,
                                            int value, int device) {
  STREAMRACE_EMU_TRACED(cudaKernelSetAttributeForDevice, v12060,
                        acceptKernelSetting(kernel, device), kernel, attr, value, device);
}

cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache cacheConfig) {
  STREAMRACE_EMU_TRACED(cudaFuncSetCacheConfig, v3020, acceptFunctionSetting(func), func,
                        cacheConfig);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func,
                                                          int blockSize, size_t dynamicSMemSize) {
  STREAMRACE_EMU_TRACED(cudaOccupancyMaxActiveBlocksPerMultiprocessor, v6050,
                        occupancy(numBlocks, func, blockSize), numBlocks, func, blockSize,
                        dynamicSMemSize);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize,
                                                                   unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, v7000,
                        occupancy(numBlocks, func, blockSize), numBlocks, func, blockSize,
                        dynamicSMemSize, flags);
}

} // extern "C"
