// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Devices, versions and the current device of each host thread.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <cstdio>
#include <cstring>

#include "api_tracing.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

// What the emulated devices claim to be: a recent data-center part, so programs take their
// ordinary code paths.
constexpr int emulatedMajor = 9;
constexpr int emulatedMinor = 0;
constexpr int emulatedMultiprocessors = 132;
constexpr int runtimeVersion = CUDART_VERSION;

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
  prop->major = emulatedMajor;
  prop->minor = emulatedMinor;
  prop->textureAlignment = 512;
  prop->texturePitchAlignment = 32;
  prop->multiProcessorCount = emulatedMultiprocessors;
  prop->canMapHostMemory = 1;
  prop->concurrentKernels = 1;
  prop->pciBusID = device + 1;
  prop->asyncEngineCount = 2;
  prop->unifiedAddressing = 1;
  prop->memoryBusWidth = 5120;
  prop->l2CacheSize = 50 << 20;
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

cudaError_t setDevice(int device) {
  Runtime& runtime = Runtime::instance();
  if (!runtime.validDevice(device)) {
    return cudaErrorInvalidDevice;
  }
  runtime.setCurrentDevice(device);
  ensureContext(device);
  return cudaSuccess;
}

cudaError_t synchronizeCurrentDevice() {
  Runtime& runtime = Runtime::instance();
  int device = runtime.currentDevice();
  runtime.synchronizeDevice(device);
  notifyContextSynchronized(device);
  return cudaSuccess;
}

template <typename T> cudaError_t store(T* destination, T value) {
  if (destination == nullptr) {
    return cudaErrorInvalidValue;
  }
  *destination = value;
  return cudaSuccess;
}

// Same range as current hardware: 0 is the lowest priority, -5 the highest. Either pointer may
// be null.
cudaError_t priorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority != nullptr) {
    *leastPriority = 0;
  }
  if (greatestPriority != nullptr) {
    *greatestPriority = -5;
  }
  return cudaSuccess;
}

} // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  STREAMRACE_EMU_TRACED(cudaGetDeviceCount, v3020, store(count, Runtime::instance().deviceCount()),
                        count);
}

cudaError_t cudaSetDevice(int device) {
  STREAMRACE_EMU_TRACED(cudaSetDevice, v3020, setDevice(device), device);
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaInitDevice, v12000,
                        Runtime::instance().validDevice(device) ? cudaSuccess
                                                                : cudaErrorInvalidDevice,
                        device, deviceFlags, flags);
}

cudaError_t cudaGetDevice(int* device) {
  STREAMRACE_EMU_TRACED(cudaGetDevice, v3020, store(device, Runtime::instance().currentDevice()),
                        device);
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaSetDeviceFlags, v3020, cudaSuccess, flags);
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  STREAMRACE_EMU_TRACED(cudaGetDeviceFlags, v7000, store(flags, 0u), flags);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  STREAMRACE_EMU_TRACED(cudaGetDeviceProperties, v12000, fillProperties(prop, device), prop,
                        device);
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  STREAMRACE_EMU_TRACED(cudaDeviceGetAttribute, v5000, deviceAttribute(value, attr, device), value,
                        attr, device);
}

cudaError_t cudaDeviceSynchronize(void) {
  STREAMRACE_EMU_TRACED_WITHOUT_PARAMS(cudaDeviceSynchronize, v3020, synchronizeCurrentDevice());
}

cudaError_t cudaDeviceReset(void) {
  STREAMRACE_EMU_TRACED_WITHOUT_PARAMS(cudaDeviceReset, v3020, synchronizeCurrentDevice());
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  STREAMRACE_EMU_TRACED(cudaDeviceGetStreamPriorityRange, v5050,
                        priorityRange(leastPriority, greatestPriority), leastPriority,
                        greatestPriority);
}

cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  Runtime& runtime = Runtime::instance();
  STREAMRACE_EMU_TRACED(cudaDeviceCanAccessPeer, v4000,
                        !runtime.validDevice(device) || !runtime.validDevice(peerDevice)
                            ? cudaErrorInvalidDevice
                            : store(canAccessPeer, device != peerDevice ? 1 : 0),
                        canAccessPeer, device, peerDevice);
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaDeviceEnablePeerAccess, v4000,
                        Runtime::instance().validDevice(peerDevice) ? cudaSuccess
                                                                    : cudaErrorInvalidDevice,
                        peerDevice, flags);
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
  STREAMRACE_EMU_TRACED(cudaDeviceDisablePeerAccess, v4000,
                        Runtime::instance().validDevice(peerDevice) ? cudaSuccess
                                                                    : cudaErrorInvalidDevice,
                        peerDevice);
}

cudaError_t cudaDriverGetVersion(int* driverVersion) {
  STREAMRACE_EMU_TRACED(cudaDriverGetVersion, v3020, store(driverVersion, runtimeVersion),
                        driverVersion);
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  STREAMRACE_EMU_TRACED(cudaRuntimeGetVersion, v3020, store(version, runtimeVersion), version);
}

} // extern "C"
