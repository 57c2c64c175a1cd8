// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Last error, error names and error strings.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include "api_tracing.h"

using namespace streamrace::emu;

namespace {

struct ErrorName {
  cudaError_t code;
  const char* name;
};

// Generated at build time from the toolkit's driver_types.h, so every code has its name.
constexpr ErrorName kErrorNames[] = {
#include "cuda_error_names.inc"
};

// The runtime's own wording for the errors programs meet most; the rest read as their name.
struct ErrorString {
  cudaError_t code;
  const char* text;
};

constexpr ErrorString kErrorStrings[] = {
    {cudaSuccess, "no error"},
    {cudaErrorInvalidValue, "invalid argument"},
    {cudaErrorMemoryAllocation, "out of memory"},
    {cudaErrorInitializationError, "initialization error"},
    {cudaErrorInvalidDevice, "invalid device ordinal"},
    {cudaErrorInvalidDevicePointer, "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"},
    {cudaErrorInvalidDeviceFunction, "invalid device function"},
    {cudaErrorInvalidResourceHandle, "invalid resource handle"},
    {cudaErrorNotReady, "device not ready"},
    {cudaErrorHostMemoryAlreadyRegistered,
     "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region"},
    {cudaErrorIllegalState, "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureUnmatched, "capture was not initiated in this stream"},
    {cudaErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture"},
    {cudaErrorNoDevice, "no CUDA-capable device is detected"},
    {cudaErrorInvalidConfiguration, "invalid configuration argument"},
    {cudaErrorMissingConfiguration, "__global__ function call is not configured"},
    {cudaErrorNotSupported, "operation not supported"},
};

const char* nameOf(cudaError_t error) {
  for (const ErrorName& entry : kErrorNames) {
    if (entry.code == error) {
      return entry.name;
    }
  }
  return nullptr;
}

const char* stringOf(cudaError_t error) {
  for (const ErrorString& entry : kErrorStrings) {
    if (entry.code == error) {
      return entry.text;
    }
  }
  const char* name = nameOf(error);
  return name != nullptr ? name : "unrecognized error code";
}

} // namespace

extern "C" {

cudaError_t cudaGetLastError(void) {
  ensureInitialized();
  cudaError_t result = cudaSuccess;
  ApiCallbackScope scope(CUPTI_CB_DOMAIN_RUNTIME_API,
                         CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020, "cudaGetLastError",
                         nullptr, &result);
  result = takeLastError();
  scope.finish();
  return result;
}

cudaError_t cudaPeekAtLastError(void) {
  ensureInitialized();
  cudaError_t result = cudaSuccess;
  ApiCallbackScope scope(CUPTI_CB_DOMAIN_RUNTIME_API,
                         CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020, "cudaPeekAtLastError",
                         nullptr, &result);
  result = peekLastError();
  scope.finish();
  return result;
}

// Name and string lookups are pure: the real runtime answers them without initializing either.
const char* cudaGetErrorName(cudaError_t error) {
  const char* name = nameOf(error);
  return name != nullptr ? name : "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  return stringOf(error);
}

} // extern "C"
