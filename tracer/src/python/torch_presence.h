// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// PyTorch in a traced Python process that streamrace.torch never attached to (the Python package
// was not on the job's PYTHONPATH, or nothing enabled it): its operators' kernels are traced with
// approximate extents and native frames only. The process still runs and is checked; this says
// why its findings read as they do.
#pragma once

#include "streamrace/engine/options.h"

namespace streamrace::tracer {

// One warning line when the process loaded PyTorch, torch_ops is on and the package never
// attached. Called once, as the process's trace ends, when that is known.
void warn_if_torch_ran_unobserved(const Settings& settings);

} // namespace streamrace::tracer
