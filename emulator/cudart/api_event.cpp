// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Events: snapshots of a stream's work that other streams and the host can wait on and time.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <chrono>

#include "api_tracing.h"
#include "runtime_operations.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

constexpr unsigned kValidEventFlags =
    cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
constexpr unsigned kValidRecordFlags = cudaEventRecordExternal;

cudaError_t elapsedTime(float* ms, cudaEvent_t startHandle, cudaEvent_t endHandle) {
  Runtime& runtime = Runtime::instance();
  if (ms == nullptr) {
    return cudaErrorInvalidValue;
  }
  Event* start = runtime.resolveEvent(startHandle);
  Event* end = runtime.resolveEvent(endHandle);
  if (start == nullptr || end == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (((start->flags | end->flags) & cudaEventDisableTiming) != 0) {
    return cudaErrorInvalidResourceHandle;
  }
  CompletionPtr startSnapshot = runtime.eventSnapshot(*start);
  CompletionPtr endSnapshot = runtime.eventSnapshot(*end);
  if (startSnapshot == nullptr || endSnapshot == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (!startSnapshot->isDone() || !endSnapshot->isDone()) {
    return cudaErrorNotReady;
  }
  *ms = std::chrono::duration<float, std::milli>(endSnapshot->finishedAt() -
                                                 startSnapshot->finishedAt())
            .count();
  return cudaSuccess;
}

} // namespace

namespace streamrace::emu {

cudaError_t createEvent(cudaEvent_t* event, unsigned flags) {
  if (event == nullptr || (flags & ~kValidEventFlags) != 0) {
    return cudaErrorInvalidValue;
  }
  // Interprocess events must be created without timing, as the runtime requires.
  if ((flags & cudaEventInterprocess) != 0 && (flags & cudaEventDisableTiming) == 0) {
    return cudaErrorInvalidValue;
  }
  *event = Runtime::instance().createEvent(flags);
  return cudaSuccess;
}

cudaError_t recordEvent(cudaEvent_t eventHandle, cudaStream_t streamHandle, unsigned flags,
                        DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Event* event = runtime.resolveEvent(eventHandle);
  Stream* stream = runtime.resolveStream(streamHandle, zero);
  if (event == nullptr || stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if ((flags & ~kValidRecordFlags) != 0) {
    return cudaErrorInvalidValue;
  }
  runtime.recordEvent(*event, *stream);
  return cudaSuccess;
}

cudaError_t queryEvent(cudaEvent_t eventHandle) {
  Runtime& runtime = Runtime::instance();
  Event* event = runtime.resolveEvent(eventHandle);
  if (event == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  CompletionPtr snapshot = runtime.eventSnapshot(*event);
  return snapshot == nullptr || snapshot->isDone() ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t synchronizeEvent(cudaEvent_t eventHandle) {
  Runtime& runtime = Runtime::instance();
  Event* event = runtime.resolveEvent(eventHandle);
  if (event == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (CompletionPtr snapshot = runtime.eventSnapshot(*event)) {
    snapshot->wait();
  }
  return cudaSuccess;
}

cudaError_t destroyEvent(cudaEvent_t event) {
  return Runtime::instance().destroyEvent(event) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

} // namespace streamrace::emu

extern "C" {

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  STREAMRACE_EMU_TRACED(cudaEventCreate, v3020, createEvent(event, cudaEventDefault), event);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaEventCreateWithFlags, v3020, createEvent(event, flags), event, flags);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaEventRecord, v3020,
                        recordEvent(event, stream, 0, DefaultStream::Legacy), event, stream);
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaEventRecord_ptsz, v7000,
                        recordEvent(event, stream, 0, DefaultStream::PerThread), event, stream);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaEventRecordWithFlags, v11010,
                        recordEvent(event, stream, flags, DefaultStream::Legacy), event, stream,
                        flags);
}

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                          unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaEventRecordWithFlags_ptsz, v11010,
                        recordEvent(event, stream, flags, DefaultStream::PerThread), event, stream,
                        flags);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  STREAMRACE_EMU_TRACED(cudaEventQuery, v3020, queryEvent(event), event);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  STREAMRACE_EMU_TRACED(cudaEventSynchronize, v3020, synchronizeEvent(event), event);
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  STREAMRACE_EMU_TRACED(cudaEventElapsedTime, v12080, elapsedTime(ms, start, end), ms, start, end);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  STREAMRACE_EMU_TRACED(cudaEventDestroy, v3020, destroyEvent(event), event);
}

} // extern "C"
