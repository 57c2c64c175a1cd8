// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What every emulated entry point does around its work: first-use initialization (including
// the driver's CUDA_INJECTION64_PATH behaviour), CUPTI runtime-API callbacks at enter and exit
// with the real parameter structs, and the per-thread "last error".
#pragma once

#include <cuda_runtime_api.h>
#include <cupti_callbacks.h>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace streamrace::emu {

class Device;

// Loads the injection library once, before the first API call does anything else.
void ensureInitialized();
// Makes sure CUPTI has been told about the device's (primary) context.
void ensureContext(int device);
CUcontext contextOf(int device);

void setLastError(cudaError_t error);
cudaError_t takeLastError();
cudaError_t peekLastError();

// One API call as CUPTI sees it: the enter callback on construction, the exit callback in
// finish(), each delivered to whoever subscribes to it at that moment (a tool that subscribed
// during the call sees its exit only). Nested calls (the driver-domain launch inside a runtime
// launch) share nothing.
class ApiCallbackScope {
public:
  ApiCallbackScope(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char* functionName,
                   const void* params, void* returnValue, const char* symbolName = nullptr);
  void finish();

private:
  CUpti_CallbackDomain domain_;
  CUpti_CallbackId cbid_;
  void placeInContext();

  CUpti_CallbackData data_{};
  std::uint64_t correlationData_ = 0;
  bool insideTool_ = false; // made by a tool's callback: never delivered
  bool entered_ = false;
};

// Runs one runtime-API call: `body` returns the cudaError_t to hand back.
template <typename Params, typename Body>
cudaError_t traced(CUpti_CallbackId cbid, const char* functionName, const Params* params,
                   Body&& body, const char* symbolName = nullptr) {
  cudaError_t result = cudaSuccess;
  // The real driver loads the injection library inside the program's first runtime call, past
  // that call's enter callback: a tool subscribing then sees the call's nested driver calls and
  // its exit, not its enter.
  ApiCallbackScope scope(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, functionName, params, &result,
                         symbolName);
  ensureInitialized();
  result = body();
  if (result != cudaSuccess && result != cudaErrorNotReady) {
    setLastError(result);
  }
  scope.finish();
  return result;
}

// For the functions CUPTI has no parameter struct for.
struct NoParams {};

} // namespace streamrace::emu

namespace streamrace::emu {

template <typename Body>
cudaError_t tracedWithoutParams(CUpti_CallbackId cbid, const char* functionName, Body&& body) {
  return traced(cbid, functionName, static_cast<const NoParams*>(nullptr),
                std::forward<Body>(body));
}

// Resource- and synchronize-domain notifications.
void notifyStreamCreated(int device, cudaStream_t stream);
void notifyStreamDestroyStarting(int device, cudaStream_t stream);
void notifyStreamSynchronized(int device, cudaStream_t stream);
void notifyContextSynchronized(int device);

} // namespace streamrace::emu

// Body of an entry point `api` whose CUPTI record is `api_version_params`: builds that struct from
// the trailing arguments (in the struct's field order) and runs `call` between the callbacks.
#define STREAMRACE_EMU_TRACED(api, version, call, ...)                                             \
  const api##_##version##_params tracedParams{__VA_ARGS__};                                        \
  return ::streamrace::emu::traced(CUPTI_RUNTIME_TRACE_CBID_##api##_##version, #api,               \
                                   &tracedParams, [&]() -> cudaError_t { return call; })

#define STREAMRACE_EMU_TRACED_WITHOUT_PARAMS(api, version, call)                                   \
  return ::streamrace::emu::tracedWithoutParams(CUPTI_RUNTIME_TRACE_CBID_##api##_##version, #api,  \
                                                [&]() -> cudaError_t { return call; })
