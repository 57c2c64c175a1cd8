// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The activity API (asynchronous records of kernels, copies and API calls, which profilers such
// as PyTorch's Kineto collect) and cuptiFinalize. The emulator produces no activity records:
// enabling a kind or an API's records is refused with CUPTI_ERROR_NOT_SUPPORTED, so a profiler
// learns at once that it will get nothing. What has a meaning without records works as CUPTI
// documents it: flushing, counting dropped records and reading the next record of a buffer (there
// are none), external correlation ids, buffer callbacks and attributes (kept, never used).
#include <cupti.h>

#include <map>
#include <vector>

#include "subscriber.h"

namespace {

// Per thread, as CUPTI keeps them: one stack of ids per external correlation kind.
thread_local std::map<CUpti_ExternalCorrelationKind, std::vector<uint64_t>> externalCorrelationIds;

} // namespace

extern "C" {

CUptiResult cuptiActivityEnable(CUpti_ActivityKind) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

// Nothing can have been enabled.
CUptiResult cuptiActivityDisable(CUpti_ActivityKind) {
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId, uint8_t) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId, uint8_t) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult cuptiActivityEnableCudaEventDeviceTimestamps(uint8_t) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult cuptiActivityFlushAll(uint32_t) {
  return CUPTI_SUCCESS;
}

// A buffer the program hands back never holds a record: its end is reached at once.
CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t, CUpti_Activity** record) {
  if (buffer == nullptr || record == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  return CUPTI_ERROR_MAX_LIMIT_REACHED;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  if (dropped == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  *dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                   uint64_t id) {
  if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID ||
      kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE) {
    return CUPTI_ERROR_INVALID_KIND;
  }
  externalCorrelationIds[kind].push_back(id);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                  uint64_t* lastId) {
  if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID ||
      kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE) {
    return CUPTI_ERROR_INVALID_KIND;
  }
  std::vector<uint64_t>& ids = externalCorrelationIds[kind];
  if (ids.empty()) {
    return CUPTI_ERROR_QUEUE_EMPTY;
  }
  if (lastId != nullptr) {
    *lastId = ids.back();
  }
  ids.pop_back();
  return CUPTI_SUCCESS;
}

// Buffers are requested only for records; with none produced the callbacks are never called.
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                                           CUpti_BuffersCallbackCompleteFunc funcBufferCompleted) {
  if (funcBufferRequested == nullptr || funcBufferCompleted == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp) {
  return funcTimestamp == nullptr ? CUPTI_ERROR_INVALID_PARAMETER : CUPTI_SUCCESS;
}

CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute, size_t* valueSize, void* value) {
  if (valueSize == nullptr || value == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  return CUPTI_SUCCESS;
}

// Detaches CUPTI from the process: the subscriber stops receiving callbacks.
CUptiResult cuptiFinalize(void) {
  streamrace::emu::cupti::Subscriber::instance().detach();
  return CUPTI_SUCCESS;
}

} // extern "C"
