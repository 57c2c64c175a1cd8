// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The driver's view of devices and contexts, for libraries that ask the driver (PyTorch's c10
// and its NVRTC stub, NCCL): each device has one primary context, the one the runtime uses,
// created by the first runtime call that needs the device. A thread's current context is its
// current device's primary context once that exists; making a context current selects its
// device, and push and pop save and restore the previous one. A context a program creates
// (cuCtxCreate) is its device's too: the emulator keeps one set of streams and memory per
// device, so such a context shares them with the primary one; it has a handle of its own, is
// current until popped, made current elsewhere or destroyed.
#include "driver_entry.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "device_properties.h"
#include "driver_tracing.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

constexpr int kDriverVersion = CUDA_VERSION;

// What cuCtxPushCurrent saved on this thread: the context current before each push (null when
// none was). cuCtxSetCurrent(NULL) leaves the thread without a current context until it makes
// one current again.
thread_local std::vector<CUcontext> pushedContexts;
thread_local bool unbound = false;
// The created context current on this thread, if one is (else the current device's primary).
thread_local CUcontext createdCurrent = nullptr;

// The contexts cuCtxCreate made and cuCtxDestroy has not destroyed, each with its device; a
// handle is the address of its entry.
struct CreatedContext {
  int device = 0;
};
std::mutex createdMutex;
std::map<CUcontext, std::unique_ptr<CreatedContext>>& createdContexts() {
  static std::map<CUcontext, std::unique_ptr<CreatedContext>> contexts;
  return contexts;
}

int deviceOfCreated(CUcontext context) {
  const std::lock_guard lock(createdMutex);
  const auto found = createdContexts().find(context);
  return found == createdContexts().end() ? -1 : found->second->device;
}

bool validDevice(CUdevice device) {
  return Runtime::instance().validDevice(device);
}

bool primaryContextActive(int device) {
  return Runtime::instance().device(device).contextAnnounced.load();
}

// The device whose primary context `context` is, or -1.
int deviceOfContext(CUcontext context) {
  Runtime& runtime = Runtime::instance();
  for (int ordinal = 0; ordinal < runtime.deviceCount(); ++ordinal) {
    if (contextOf(ordinal) == context) {
      return ordinal;
    }
  }
  return deviceOfCreated(context);
}

CUcontext currentContext() {
  if (unbound) {
    return nullptr;
  }
  if (createdCurrent != nullptr) {
    // Destroyed on another thread: this thread is left without a current context.
    return deviceOfCreated(createdCurrent) >= 0 ? createdCurrent : nullptr;
  }
  const int device = Runtime::instance().currentDevice();
  return primaryContextActive(device) ? contextOf(device) : nullptr;
}

// Making a context current selects its device for the runtime too, which then uses it.
CUresult makeCurrent(CUcontext context) {
  if (context == nullptr) {
    unbound = true;
    return CUDA_SUCCESS;
  }
  const int device = deviceOfContext(context);
  if (device < 0) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  unbound = false;
  createdCurrent = deviceOfCreated(context) >= 0 ? context : nullptr;
  Runtime::instance().setCurrentDevice(device);
  ensureContext(device);
  return CUDA_SUCCESS;
}

CUresult pushContext(CUcontext context) {
  if (context == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const CUcontext previous = currentContext();
  const CUresult result = makeCurrent(context);
  if (result == CUDA_SUCCESS) {
    pushedContexts.push_back(previous);
  }
  return result;
}

CUresult popContext(CUcontext* popped) {
  if (pushedContexts.empty()) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (popped != nullptr) {
    *popped = currentContext();
  }
  const CUcontext previous = pushedContexts.back();
  pushedContexts.pop_back();
  // A context destroyed since it was pushed leaves the thread without one.
  return makeCurrent(previous != nullptr && deviceOfContext(previous) >= 0 ? previous : nullptr);
}

// A new context on `device`, pushed as the thread's current one (the creation parameters'
// execution-affinity and CIG settings have nothing to act on here).
CUresult createContext(CUcontext* context, CUdevice device) {
  if (context == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!validDevice(device)) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  ensureContext(device);
  auto created = std::make_unique<CreatedContext>(CreatedContext{device});
  const auto handle = reinterpret_cast<CUcontext>(created.get());
  {
    const std::lock_guard lock(createdMutex);
    createdContexts().emplace(handle, std::move(created));
  }
  *context = handle;
  return pushContext(handle);
}

// Destroying a context waits for its work; current on this thread, it is popped as well.
CUresult destroyContext(CUcontext context) {
  const int device = deviceOfCreated(context);
  if (device < 0) {
    return deviceOfContext(context) >= 0 ? CUDA_ERROR_INVALID_CONTEXT // a primary context
                                         : CUDA_ERROR_INVALID_VALUE;
  }
  Runtime::instance().synchronizeDevice(device);
  const bool current = currentContext() == context;
  {
    const std::lock_guard lock(createdMutex);
    createdContexts().erase(context);
  }
  if (current) {
    if (!pushedContexts.empty()) {
      return popContext(nullptr);
    }
    createdCurrent = nullptr;
    unbound = true;
  }
  return CUDA_SUCCESS;
}

template <typename T> CUresult store(T* destination, T value) {
  if (destination == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *destination = value;
  return CUDA_SUCCESS;
}

CUresult deviceName(char* name, int length, CUdevice device) {
  cudaDeviceProp prop;
  if (name == nullptr || length <= 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (cudaError_t error = fillProperties(&prop, device); error != cudaSuccess) {
    return driverResult(error);
  }
  std::snprintf(name, static_cast<std::size_t>(length), "%s", prop.name);
  return CUDA_SUCCESS;
}

CUresult deviceUuid(CUuuid* uuid, CUdevice device) {
  cudaDeviceProp prop;
  if (uuid == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (cudaError_t error = fillProperties(&prop, device); error != cudaSuccess) {
    return driverResult(error);
  }
  std::memcpy(uuid->bytes, prop.uuid.bytes, sizeof uuid->bytes);
  return CUDA_SUCCESS;
}

CUresult primaryContextState(CUdevice device, unsigned* flags, int* active) {
  if (!validDevice(device)) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  if (flags == nullptr || active == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *flags = 0;
  *active = primaryContextActive(device) ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult retainPrimaryContext(CUcontext* context, CUdevice device) {
  if (!validDevice(device)) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  if (context == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  ensureContext(device);
  *context = contextOf(device);
  return CUDA_SUCCESS;
}

CUresult contextDevice(CUdevice* device) {
  CUcontext context = currentContext();
  if (context == nullptr) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  return store(device, static_cast<CUdevice>(deviceOfContext(context)));
}

CUresult synchronizeContext() {
  CUcontext context = currentContext();
  if (context == nullptr) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  Runtime::instance().synchronizeDevice(deviceOfContext(context));
  return CUDA_SUCCESS;
}

CUresult streamContext(CUstream handle, CUcontext* context) {
  if (context == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  Stream* stream = Runtime::instance().resolveStream(reinterpret_cast<cudaStream_t>(handle),
                                                     DefaultStream::Legacy);
  if (stream == nullptr) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  *context = contextOf(stream->device);
  return CUDA_SUCCESS;
}

} // namespace

extern "C" {

CUresult streamraceEmuDriverDriverGetVersion(int* version) {
  STREAMRACE_EMU_DRIVER_TRACED(cuDriverGetVersion, store(version, kDriverVersion), version);
}

CUresult streamraceEmuDriverDeviceGet(CUdevice* device, int ordinal) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuDeviceGet, validDevice(ordinal) ? store(device, ordinal) : CUDA_ERROR_INVALID_DEVICE,
      device, ordinal);
}

CUresult streamraceEmuDriverDeviceGetCount(int* count) {
  STREAMRACE_EMU_DRIVER_TRACED(cuDeviceGetCount, store(count, Runtime::instance().deviceCount()),
                               count);
}

// Every attribute the runtime and the driver share has the same number in both.
CUresult streamraceEmuDriverDeviceGetAttribute(int* value, CUdevice_attribute attribute,
                                               CUdevice device) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuDeviceGetAttribute,
      driverResult(deviceAttribute(value, static_cast<cudaDeviceAttr>(attribute), device)), value,
      attribute, device);
}

CUresult streamraceEmuDriverDeviceGetName(char* name, int length, CUdevice device) {
  STREAMRACE_EMU_DRIVER_TRACED(cuDeviceGetName, deviceName(name, length, device), name, length,
                               device);
}

CUresult streamraceEmuDriverDeviceGetUuid(CUuuid* uuid, CUdevice device) {
  STREAMRACE_EMU_DRIVER_TRACED(cuDeviceGetUuid_v2, deviceUuid(uuid, device), uuid, device);
}

CUresult streamraceEmuDriverDeviceTotalMem(size_t* bytes, CUdevice device) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuDeviceTotalMem_v2,
      validDevice(device) ? store(bytes, Runtime::instance().device(device).arena.capacity())
                          : CUDA_ERROR_INVALID_DEVICE,
      bytes, device);
}

CUresult streamraceEmuDriverDevicePrimaryCtxGetState(CUdevice device, unsigned int* flags,
                                                     int* active) {
  STREAMRACE_EMU_DRIVER_TRACED(cuDevicePrimaryCtxGetState,
                               primaryContextState(device, flags, active), device, flags, active);
}

CUresult streamraceEmuDriverDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  STREAMRACE_EMU_DRIVER_TRACED(cuDevicePrimaryCtxRetain, retainPrimaryContext(context, device),
                               context, device);
}

// The runtime keeps every primary context for the process's life: releasing one only drops
// the caller's reference.
CUresult streamraceEmuDriverDevicePrimaryCtxRelease(CUdevice device) {
  STREAMRACE_EMU_DRIVER_TRACED(cuDevicePrimaryCtxRelease_v2,
                               validDevice(device) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE,
                               device);
}

CUresult streamraceEmuDriverCtxGetCurrent(CUcontext* context) {
  STREAMRACE_EMU_DRIVER_TRACED(cuCtxGetCurrent, store(context, currentContext()), context);
}

CUresult streamraceEmuDriverCtxSetCurrent(CUcontext context) {
  STREAMRACE_EMU_DRIVER_TRACED(cuCtxSetCurrent, makeCurrent(context), context);
}

CUresult streamraceEmuDriverCtxPushCurrent(CUcontext context) {
  STREAMRACE_EMU_DRIVER_TRACED(cuCtxPushCurrent_v2, pushContext(context), context);
}

CUresult streamraceEmuDriverCtxPopCurrent(CUcontext* context) {
  STREAMRACE_EMU_DRIVER_TRACED(cuCtxPopCurrent_v2, popContext(context), context);
}

CUresult streamraceEmuDriverCtxCreate(CUcontext* context, CUctxCreateParams* params,
                                      unsigned int flags, CUdevice device) {
  STREAMRACE_EMU_DRIVER_TRACED(cuCtxCreate_v4, createContext(context, device), context, params,
                               flags, device);
}

CUresult streamraceEmuDriverCtxDestroy(CUcontext context) {
  STREAMRACE_EMU_DRIVER_TRACED(cuCtxDestroy_v2, destroyContext(context), context);
}

CUresult streamraceEmuDriverCtxGetDevice(CUdevice* device) {
  STREAMRACE_EMU_DRIVER_TRACED(cuCtxGetDevice, contextDevice(device), device);
}

// CUPTI has no parameter struct for a call without parameters.
CUresult streamraceEmuDriverCtxSynchronize(void) {
  return tracedDriverCall(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize",
                          static_cast<const void*>(nullptr), [] { return synchronizeContext(); });
}

CUresult streamraceEmuDriverStreamGetCtx(CUstream stream, CUcontext* context) {
  STREAMRACE_EMU_DRIVER_TRACED(cuStreamGetCtx, streamContext(stream, context), stream, context);
}

} // extern "C"
