// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A driver call that makes a context current (cuCtxSetCurrent, cuCtxPushCurrent,
// cuCtxPopCurrent, cuCtxCreate, cuCtxDestroy of the current one) selects that context's device for
// the calling thread, as cudaSetDevice does. A context handle does not name its device, so after
// such a call the driver is asked which device the thread's current context stands for.
#pragma once

#include "streamrace/engine/event.h"

#include <optional>

namespace streamrace::tracer {

// The device of the calling thread's current context (cuCtxGetDevice, a query that changes
// nothing); nullopt when no context is current or the driver cannot be asked.
std::optional<DeviceId> current_context_device();

} // namespace streamrace::tracer
