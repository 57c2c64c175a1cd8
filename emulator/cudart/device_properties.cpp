// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "device_properties.h"

#include <cstdio>

#include "runtime_state.h"

namespace streamrace::emu {

namespace {

// What the emulated devices claim to be: a recent data-center part, so programs take their
// ordinary code paths.
constexpr int kEmulatedMajor = 9;
constexpr int kEmulatedMinor = 0;
constexpr int kEmulatedMultiprocessors = 132;
// A part of that class sets aside up to three quarters of its L2 for persisting accesses and
// takes access-policy windows up to 128 MiB less a page, so programs that tune L2 persistence
// run their tuned path instead of waiving it.
constexpr int kEmulatedL2Bytes = 50 << 20;
constexpr int kEmulatedPersistingL2Bytes = kEmulatedL2Bytes / 4 * 3;
constexpr int kEmulatedAccessPolicyWindowBytes = (128 << 20) - 4096;

} // namespace

cudaError_t fillProperties(cudaDeviceProp* prop, int device) {
  Runtime& runtime = Runtime::instance();
  if (prop == nullptr) {
    return cudaErrorInvalidValue;
  }
  if (!runtime.validDevice(device)) {
    return cudaErrorInvalidDevice;
  }
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof prop->name, "streamrace emulated GPU %d", device);
  prop->uuid.bytes[0] = static_cast<char>(device + 1);
  prop->totalGlobalMem = runtime.device(device).arena.capacity();
  prop->sharedMemPerBlock = 48 << 10;
  prop->sharedMemPerBlockOptin = 227 << 10;
  prop->sharedMemPerMultiprocessor = 228 << 10;
  prop->regsPerBlock = 65536;
  prop->regsPerMultiprocessor = 65536;
  prop->warpSize = 32;
  prop->memPitch = 2147483647;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = 1024;
  prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = 65535;
  prop->maxGridSize[2] = 65535;
  prop->totalConstMem = 65536;
  prop->major = kEmulatedMajor;
  prop->minor = kEmulatedMinor;
  prop->textureAlignment = 512;
  prop->texturePitchAlignment = 32;
  prop->multiProcessorCount = kEmulatedMultiprocessors;
  prop->canMapHostMemory = 1;
  prop->concurrentKernels = 1;
  prop->pciBusID = device + 1;
  prop->asyncEngineCount = 2;
  prop->unifiedAddressing = 1;
  prop->memoryBusWidth = 5120;
  prop->l2CacheSize = kEmulatedL2Bytes;
  prop->persistingL2CacheMaxSize = kEmulatedPersistingL2Bytes;
  prop->accessPolicyMaxWindowSize = kEmulatedAccessPolicyWindowBytes;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->streamPrioritiesSupported = 1;
  prop->managedMemory = 1;
  prop->concurrentManagedAccess = 1;
  prop->cooperativeLaunch = 1;
  prop->maxBlocksPerMultiProcessor = 32;
  prop->hostRegisterSupported = 1;
  prop->memoryPoolsSupported = 1;
  return cudaSuccess;
}

cudaError_t deviceAttribute(int* value, cudaDeviceAttr attr, int device) {
  cudaDeviceProp prop;
  if (value == nullptr) {
    return cudaErrorInvalidValue;
  }
  if (cudaError_t error = fillProperties(&prop, device); error != cudaSuccess) {
    return error;
  }
  switch (attr) {
  case cudaDevAttrMaxThreadsPerBlock:
    *value = prop.maxThreadsPerBlock;
    break;
  case cudaDevAttrMaxBlockDimX:
    *value = prop.maxThreadsDim[0];
    break;
  case cudaDevAttrMaxBlockDimY:
    *value = prop.maxThreadsDim[1];
    break;
  case cudaDevAttrMaxBlockDimZ:
    *value = prop.maxThreadsDim[2];
    break;
  case cudaDevAttrMaxGridDimX:
    *value = prop.maxGridSize[0];
    break;
  case cudaDevAttrMaxGridDimY:
    *value = prop.maxGridSize[1];
    break;
  case cudaDevAttrMaxGridDimZ:
    *value = prop.maxGridSize[2];
    break;
  case cudaDevAttrMaxSharedMemoryPerBlock:
    *value = static_cast<int>(prop.sharedMemPerBlock);
    break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin:
    *value = static_cast<int>(prop.sharedMemPerBlockOptin);
    break;
  case cudaDevAttrWarpSize:
    *value = prop.warpSize;
    break;
  case cudaDevAttrMultiProcessorCount:
    *value = prop.multiProcessorCount;
    break;
  case cudaDevAttrComputeCapabilityMajor:
    *value = prop.major;
    break;
  case cudaDevAttrComputeCapabilityMinor:
    *value = prop.minor;
    break;
  case cudaDevAttrConcurrentKernels:
    *value = prop.concurrentKernels;
    break;
  case cudaDevAttrPciBusId:
    *value = prop.pciBusID;
    break;
  case cudaDevAttrUnifiedAddressing:
    *value = prop.unifiedAddressing;
    break;
  case cudaDevAttrManagedMemory:
    *value = prop.managedMemory;
    break;
  case cudaDevAttrMemoryPoolsSupported:
    *value = prop.memoryPoolsSupported;
    break;
  case cudaDevAttrAsyncEngineCount:
    *value = prop.asyncEngineCount;
    break;
  case cudaDevAttrMaxThreadsPerMultiProcessor:
    *value = prop.maxThreadsPerMultiProcessor;
    break;
  case cudaDevAttrL2CacheSize:
    *value = prop.l2CacheSize;
    break;
  case cudaDevAttrMaxPersistingL2CacheSize:
    *value = prop.persistingL2CacheMaxSize;
    break;
  case cudaDevAttrMaxAccessPolicyWindowSize:
    *value = prop.accessPolicyMaxWindowSize;
    break;
  case cudaDevAttrCanMapHostMemory:
    *value = prop.canMapHostMemory;
    break;
  case cudaDevAttrConcurrentManagedAccess:
    *value = prop.concurrentManagedAccess;
    break;
  case cudaDevAttrCooperativeLaunch:
    *value = prop.cooperativeLaunch;
    break;
  default:
    *value = 0;
    break;
  }
  return cudaSuccess;
}

} // namespace streamrace::emu
