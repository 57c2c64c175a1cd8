// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What every driver entry point of the stand-in does around its work: first-use initialization
// and the driver-domain CUPTI callbacks a real driver raises, with the real parameter structs.
#pragma once

#include <cuda.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include "api_tracing.h"

namespace streamrace::emu {

template <typename Params, typename Body>
CUresult tracedDriverCall(CUpti_CallbackId cbid, const char* functionName, const Params* params,
                          Body&& body) {
  ensureInitialized();
  CUresult result = CUDA_SUCCESS;
  ApiCallbackScope scope(CUPTI_CB_DOMAIN_DRIVER_API, cbid, functionName, params, &result);
  result = body();
  scope.finish();
  return result;
}

// The driver's code for a runtime answer.
CUresult driverResult(cudaError_t error);

} // namespace streamrace::emu

// Body of the stand-in's `api`: builds api_params from the trailing arguments (in the struct's
// field order) and runs `call` between the driver-domain callbacks.
#define STREAMRACE_EMU_DRIVER_TRACED(api, call, ...)                                               \
  const api##_params tracedParams{__VA_ARGS__};                                                    \
  return ::streamrace::emu::tracedDriverCall(CUPTI_DRIVER_TRACE_CBID_##api, #api, &tracedParams,   \
                                             [&]() -> CUresult { return call; })
