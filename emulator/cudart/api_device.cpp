// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Devices, versions and the current device of each host thread.
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <cstdio>

#include "api_tracing.h"
#include "device_properties.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

constexpr int kRuntimeVersion = CUDART_VERSION;

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

// The form `lspci` prints, from the bus number the properties report.
cudaError_t formatPciBusId(char* pciBusId, int length, int device) {
  cudaDeviceProp prop;
  if (pciBusId == nullptr || length <= 0) {
    return cudaErrorInvalidValue;
  }
  if (cudaError_t error = fillProperties(&prop, device); error != cudaSuccess) {
    return error;
  }
  std::snprintf(pciBusId, static_cast<std::size_t>(length), "%04x:%02x:%02x.0", prop.pciDomainID,
                prop.pciBusID, prop.pciDeviceID);
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
  STREAMRACE_EMU_TRACED(cudaDriverGetVersion, v3020, store(driverVersion, kRuntimeVersion),
                        driverVersion);
}

cudaError_t cudaDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  STREAMRACE_EMU_TRACED(cudaDeviceGetPCIBusId, v4010, formatPciBusId(pciBusId, len, device),
                        pciBusId, len, device);
}

// No profiler is ever attached to the emulator: starting and stopping its collection succeed
// and collect nothing.
cudaError_t cudaProfilerStart(void) {
  STREAMRACE_EMU_TRACED_WITHOUT_PARAMS(cudaProfilerStart, v4000, cudaSuccess);
}

cudaError_t cudaProfilerStop(void) {
  STREAMRACE_EMU_TRACED_WITHOUT_PARAMS(cudaProfilerStop, v4000, cudaSuccess);
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  STREAMRACE_EMU_TRACED(cudaRuntimeGetVersion, v3020, store(version, kRuntimeVersion), version);
}

} // extern "C"
