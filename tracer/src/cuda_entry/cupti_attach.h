// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The tracer's CUPTI callbacks: each CUDA runtime call, and each driver launch outside one, is
// decoded at its exit and recorded into the tracer the subscription names.
#pragma once

#include "cuda_entry/cupti_api.h"
#include "recorder.h"

#include <functional>
#include <string>

namespace streamrace::tracer {

// The tracer a callback records into, or null while nothing is traced. The process's is created
// on its first call (Recorder::get), not when the library subscribes as it loads.
using RecorderLookup = std::function<Recorder*()>;

// Subscribes the callbacks through `cupti`: the runtime domain, and of the driver domain the
// kernel launches. `tracer` must outlive the subscription. Returns an empty string, or why CUPTI
// refused.
std::string subscribe_callbacks(CuptiApi& cupti, const RecorderLookup& tracer);

// Counts a runtime call in progress on the calling thread that the callbacks did not see enter:
// the driver loads the tracer inside the program's first runtime call, whose own driver calls
// (cuMemAlloc_v2 inside cudaMalloc) then come before its exit, and are that call's.
void count_runtime_call_in_progress();

} // namespace streamrace::tracer
