// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Streams: creation, destruction, synchronization, queries, event waits and host functions, in
// the plain form (0 = legacy default stream) and the `_ptsz` form (0 = per-thread default stream).
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <algorithm>

#include "api_tracing.h"
#include "runtime_operations.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

constexpr int kLowestPriority = 0;
constexpr int kHighestPriority = -5;

cudaError_t addCallback(cudaStream_t handle, cudaStreamCallback_t callback, void* userData,
                        unsigned flags, DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (callback == nullptr || flags != 0) {
    return cudaErrorInvalidValue;
  }
  // The callback sees the handle exactly as the caller passed it, as the runtime documents.
  runtime.submit(*stream, Work{OperationKind::HostFunction, [callback, handle, userData] {
                                 callback(handle, cudaSuccess, userData);
                               }});
  return cudaSuccess;
}

template <typename T, typename Getter>
cudaError_t streamProperty(cudaStream_t handle, T* out, DefaultStream zero, Getter getter) {
  Stream* stream = Runtime::instance().resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (out == nullptr) {
    return cudaErrorInvalidValue;
  }
  *out = getter(*stream);
  return cudaSuccess;
}

unsigned flagsOf(const Stream& stream) {
  return stream.flags;
}
int priorityOf(const Stream& stream) {
  return stream.priority;
}
int deviceOf(const Stream& stream) {
  return stream.device;
}
unsigned long long idOf(const Stream& stream) {
  return stream.id;
}

} // namespace

namespace streamrace::emu {

cudaError_t createStream(cudaStream_t* pStream, unsigned flags, int priority) {
  if (pStream == nullptr || (flags & ~static_cast<unsigned>(cudaStreamNonBlocking)) != 0) {
    return cudaErrorInvalidValue;
  }
  Runtime& runtime = Runtime::instance();
  int device = runtime.currentDevice();
  Stream& stream =
      runtime.createStream(device, flags, std::clamp(priority, kHighestPriority, kLowestPriority));
  *pStream = stream.handle();
  notifyStreamCreated(device, stream.handle());
  return cudaSuccess;
}

cudaError_t destroyStream(cudaStream_t handle) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, DefaultStream::Legacy);
  if (stream == nullptr || stream->role != StreamRole::Created) {
    return cudaErrorInvalidResourceHandle;
  }
  notifyStreamDestroyStarting(stream->device, handle);
  runtime.destroyStream(handle);
  return cudaSuccess;
}

cudaError_t synchronizeStream(cudaStream_t handle, DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (runtime.isCapturing(*stream)) {
    return cudaErrorStreamCaptureUnsupported;
  }
  runtime.drainPoint(*stream)->wait();
  notifyStreamSynchronized(stream->device, handle);
  return cudaSuccess;
}

cudaError_t queryStream(cudaStream_t handle, DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (runtime.isCapturing(*stream)) {
    return cudaErrorStreamCaptureUnsupported;
  }
  return runtime.drainPoint(*stream)->isDone() ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t waitEvent(cudaStream_t handle, cudaEvent_t eventHandle, unsigned flags,
                      DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  Event* event = runtime.resolveEvent(eventHandle);
  if (stream == nullptr || event == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if ((flags & ~static_cast<unsigned>(cudaEventWaitExternal)) != 0) {
    return cudaErrorInvalidValue;
  }
  runtime.waitEvent(*stream, *event);
  return cudaSuccess;
}

cudaError_t launchHostFunction(cudaStream_t handle, cudaHostFn_t function, void* userData,
                               DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (function == nullptr) {
    return cudaErrorInvalidValue;
  }
  runtime.submit(*stream, hostFunctionWork(HostCall{function, userData}));
  return cudaSuccess;
}

} // namespace streamrace::emu

extern "C" {

cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  STREAMRACE_EMU_TRACED(cudaStreamCreate, v3020,
                        createStream(pStream, cudaStreamDefault, kLowestPriority), pStream);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaStreamCreateWithFlags, v5000,
                        createStream(pStream, flags, kLowestPriority), pStream, flags);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  STREAMRACE_EMU_TRACED(cudaStreamCreateWithPriority, v5050, createStream(pStream, flags, priority),
                        pStream, flags, priority);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaStreamDestroy, v5050, destroyStream(stream), stream);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaStreamSynchronize, v3020,
                        synchronizeStream(stream, DefaultStream::Legacy), stream);
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaStreamSynchronize_ptsz, v7000,
                        synchronizeStream(stream, DefaultStream::PerThread), stream);
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaStreamQuery, v3020, queryStream(stream, DefaultStream::Legacy), stream);
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaStreamQuery_ptsz, v7000, queryStream(stream, DefaultStream::PerThread),
                        stream);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaStreamWaitEvent, v3020,
                        waitEvent(stream, event, flags, DefaultStream::Legacy), stream, event,
                        flags);
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaStreamWaitEvent_ptsz, v7000,
                        waitEvent(stream, event, flags, DefaultStream::PerThread), stream, event,
                        flags);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  STREAMRACE_EMU_TRACED(cudaLaunchHostFunc, v10000,
                        launchHostFunction(stream, fn, userData, DefaultStream::Legacy), stream, fn,
                        userData);
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  STREAMRACE_EMU_TRACED(cudaLaunchHostFunc_ptsz, v10000,
                        launchHostFunction(stream, fn, userData, DefaultStream::PerThread), stream,
                        fn, userData);
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* userData, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaStreamAddCallback, v5000,
                        addCallback(stream, callback, userData, flags, DefaultStream::Legacy),
                        stream, callback, userData, flags);
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                       void* userData, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaStreamAddCallback_ptsz, v7000,
                        addCallback(stream, callback, userData, flags, DefaultStream::PerThread),
                        stream, callback, userData, flags);
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int* flags) {
  STREAMRACE_EMU_TRACED(cudaStreamGetFlags, v5050,
                        streamProperty(hStream, flags, DefaultStream::Legacy, flagsOf), hStream,
                        flags);
}

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int* flags) {
  STREAMRACE_EMU_TRACED(cudaStreamGetFlags_ptsz, v7000,
                        streamProperty(hStream, flags, DefaultStream::PerThread, flagsOf), hStream,
                        flags);
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int* priority) {
  STREAMRACE_EMU_TRACED(cudaStreamGetPriority, v5050,
                        streamProperty(hStream, priority, DefaultStream::Legacy, priorityOf),
                        hStream, priority);
}

cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int* priority) {
  STREAMRACE_EMU_TRACED(cudaStreamGetPriority_ptsz, v7000,
                        streamProperty(hStream, priority, DefaultStream::PerThread, priorityOf),
                        hStream, priority);
}

cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int* device) {
  STREAMRACE_EMU_TRACED(cudaStreamGetDevice, v12080,
                        streamProperty(hStream, device, DefaultStream::Legacy, deviceOf), hStream,
                        device);
}

cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int* device) {
  STREAMRACE_EMU_TRACED(cudaStreamGetDevice_ptsz, v12080,
                        streamProperty(hStream, device, DefaultStream::PerThread, deviceOf),
                        hStream, device);
}

cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long* streamId) {
  STREAMRACE_EMU_TRACED(cudaStreamGetId, v12000,
                        streamProperty(hStream, streamId, DefaultStream::Legacy, idOf), hStream,
                        streamId);
}

cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long* streamId) {
  STREAMRACE_EMU_TRACED(cudaStreamGetId_ptsz, v12000,
                        streamProperty(hStream, streamId, DefaultStream::PerThread, idOf), hStream,
                        streamId);
}

} // extern "C"
