// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernel launches a program makes through the driver API itself — cuLaunchKernel and
// cuLaunchKernelEx, as Triton-compiled PyTorch kernels do — read from CUPTI's driver domain.
// The driver launch underneath a runtime launch is the runtime call's, already decoded at its
// exit: only driver launches outside any runtime call are decoded here, so each launch comes
// from exactly one source.
#pragma once

#include "recorder.h"

#include <cupti.h>

#include <array>

namespace streamrace::tracer {

// The driver-domain callbacks to enable: the launches, and nothing else.
inline constexpr std::array<CUpti_CallbackId, 4> kDriverLaunchCallbacks = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz};

constexpr bool is_driver_launch(CUpti_CallbackId id) {
  for (CUpti_CallbackId launch : kDriverLaunchCallbacks)
    if (launch == id) return true;
  return false;
}

// At the exit of a driver launch not nested in a runtime call: records the launch with the
// pointers among its arguments (kernelParams; a packed `extra` buffer gives none).
void record_driver_launch(Recorder& tracer, CUpti_CallbackId id, const CUpti_CallbackData& call);

} // namespace streamrace::tracer
