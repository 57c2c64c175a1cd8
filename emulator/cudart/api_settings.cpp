// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Settings a program makes that change nothing the emulator does, kept so that what it set is
// what it reads back: device limits, stream attributes, and the attachment of managed memory to a
// stream.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "api_tracing.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

std::mutex settingsMutex;

// What a device reports for a limit nobody set (the values the CUDA documentation gives).
std::size_t defaultLimit(cudaLimit limit) {
  switch (limit) {
  case cudaLimitStackSize:
    return 1024;
  case cudaLimitPrintfFifoSize:
    return 1 << 20;
  case cudaLimitMallocHeapSize:
    return 8 << 20;
  case cudaLimitDevRuntimeSyncDepth:
    return 2;
  case cudaLimitDevRuntimePendingLaunchCount:
    return 2048;
  case cudaLimitMaxL2FetchGranularity:
    return 32;
  case cudaLimitPersistingL2CacheSize:
    return 0;
  }
  return 0;
}

bool knownLimit(cudaLimit limit) {
  switch (limit) {
  case cudaLimitStackSize:
  case cudaLimitPrintfFifoSize:
  case cudaLimitMallocHeapSize:
  case cudaLimitDevRuntimeSyncDepth:
  case cudaLimitDevRuntimePendingLaunchCount:
  case cudaLimitMaxL2FetchGranularity:
  case cudaLimitPersistingL2CacheSize:
    return true;
  }
  return false;
}

std::map<std::pair<int, cudaLimit>, std::size_t>& setLimits() {
  static std::map<std::pair<int, cudaLimit>, std::size_t> limits;
  return limits;
}

cudaError_t setLimit(cudaLimit limit, std::size_t value) {
  if (!knownLimit(limit)) {
    return cudaErrorUnsupportedLimit;
  }
  const std::lock_guard lock(settingsMutex);
  setLimits()[{Runtime::instance().currentDevice(), limit}] = value;
  return cudaSuccess;
}

cudaError_t getLimit(std::size_t* value, cudaLimit limit) {
  if (value == nullptr) {
    return cudaErrorInvalidValue;
  }
  if (!knownLimit(limit)) {
    return cudaErrorUnsupportedLimit;
  }
  const std::lock_guard lock(settingsMutex);
  const auto found = setLimits().find({Runtime::instance().currentDevice(), limit});
  *value = found == setLimits().end() ? defaultLimit(limit) : found->second;
  return cudaSuccess;
}

std::map<std::pair<const Stream*, cudaStreamAttrID>, cudaStreamAttrValue>& streamAttributes() {
  static std::map<std::pair<const Stream*, cudaStreamAttrID>, cudaStreamAttrValue> attributes;
  return attributes;
}

// Stores `set` as the stream's attribute, or reads it into `get` (what was set, else what the
// stream has by default: its priority, zero for the rest).
cudaError_t streamAttribute(cudaStream_t handle, cudaStreamAttrID attribute,
                            const cudaStreamAttrValue* set, cudaStreamAttrValue* get,
                            DefaultStream zero) {
  const Stream* stream = Runtime::instance().resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (set == nullptr && get == nullptr) {
    return cudaErrorInvalidValue;
  }
  const std::lock_guard lock(settingsMutex);
  if (set != nullptr) {
    streamAttributes()[{stream, attribute}] = *set;
    return cudaSuccess;
  }
  const auto found = streamAttributes().find({stream, attribute});
  if (found != streamAttributes().end()) {
    *get = found->second;
    return cudaSuccess;
  }
  std::memset(get, 0, sizeof *get);
  if (attribute == cudaLaunchAttributePriority) {
    get->priority = stream->priority;
  }
  return cudaSuccess;
}

// Attaching managed memory to a stream only narrows which host accesses are allowed while the
// stream works; the emulator's memory is the host's, so there is nothing to narrow.
cudaError_t attachMemory(cudaStream_t handle, void* devPtr, unsigned int flags,
                         DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  if (runtime.resolveStream(handle, zero) == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  const std::optional<Allocation> allocation = runtime.memory.find(devPtr);
  if (!allocation || allocation->kind != MemoryKind::Managed ||
      (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost &&
       flags != cudaMemAttachSingle)) {
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

} // namespace

extern "C" {

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  STREAMRACE_EMU_TRACED(cudaDeviceSetLimit, v3020, setLimit(limit, value), limit, value);
}

// The emulated devices have no cache: resetting its persisting lines to normal has nothing to do.
cudaError_t cudaCtxResetPersistingL2Cache(void) {
  STREAMRACE_EMU_TRACED_WITHOUT_PARAMS(cudaCtxResetPersistingL2Cache, v11000, cudaSuccess);
}

cudaError_t cudaDeviceGetLimit(size_t* pValue, cudaLimit limit) {
  STREAMRACE_EMU_TRACED(cudaDeviceGetLimit, v3020, getLimit(pValue, limit), pValue, limit);
}

cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                   const cudaStreamAttrValue* value) {
  STREAMRACE_EMU_TRACED(cudaStreamSetAttribute, v11000,
                        streamAttribute(hStream, attr, value, nullptr, DefaultStream::Legacy),
                        hStream, attr, value);
}

cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr,
                                        const cudaStreamAttrValue* value) {
  STREAMRACE_EMU_TRACED(cudaStreamSetAttribute_ptsz, v11000,
                        streamAttribute(hStream, attr, value, nullptr, DefaultStream::PerThread),
                        hStream, attr, value);
}

cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                   cudaStreamAttrValue* valueOut) {
  STREAMRACE_EMU_TRACED(cudaStreamGetAttribute, v11000,
                        streamAttribute(hStream, attr, nullptr, valueOut, DefaultStream::Legacy),
                        hStream, attr, valueOut);
}

cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr,
                                        cudaStreamAttrValue* valueOut) {
  STREAMRACE_EMU_TRACED(cudaStreamGetAttribute_ptsz, v11000,
                        streamAttribute(hStream, attr, nullptr, valueOut, DefaultStream::PerThread),
                        hStream, attr, valueOut);
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* devPtr, size_t length,
                                     unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaStreamAttachMemAsync, v6000,
                        attachMemory(stream, devPtr, flags, DefaultStream::Legacy), stream, devPtr,
                        length, flags);
}

cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void* devPtr, size_t length,
                                          unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaStreamAttachMemAsync_ptsz, v7000,
                        attachMemory(stream, devPtr, flags, DefaultStream::PerThread), stream,
                        devPtr, length, flags);
}

} // extern "C"
