// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Names of callback ids and result codes, as the real CUPTI spells them (e.g. "cudaMalloc_v3020",
// "cuLaunchKernel", "CUPTI_ERROR_INVALID_PARAMETER").
#pragma once

#include <cupti_callbacks.h>

namespace streamrace::emu::cupti {

// nullptr when the domain has no callback with that id. Like the real CUPTI, only the runtime
// and driver API domains have names.
const char* callbackName(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
const char* resultName(CUptiResult result);

} // namespace streamrace::emu::cupti
