// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The tracer's CUPTI callbacks: each CUDA runtime call, and each driver launch outside one, is
// decoded at its exit and recorded into the tracer the subscription names.
#pragma once

#include "cuda_entry/cupti_api.h"
#include "tracer.h"

#include <functional>
#include <string>

namespace streamrace::tracer {

// The tracer a callback records into, or null while nothing is traced. The process's is created
// on its first call (Tracer::get), not when the library subscribes as it loads.
using TracerLookup = std::function<Tracer*()>;

// Subscribes the callbacks through `cupti`: the runtime domain, and of the driver domain the
// kernel launches. `tracer` must outlive the subscription. Returns an empty string, or why CUPTI
// refused.
std::string subscribe_callbacks(CuptiApi& cupti, const TracerLookup& tracer);

} // namespace streamrace::tracer
