// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// docs/semantics.md rule 7: whether the host waits for a synchronous copy or set, by direction and
// by the memory on each side: the API model's table (streamrace/api_model/host_wait.h), which the
// tracer's engine reads too.
#pragma once

#include "call_model.h"

namespace streamrace::analyzer {

// Whether the host waits for `effect`'s work when the call returns, given the memory of the
// bytes it reads (`source`, copies only) and writes (`destination`). Memory the analysis never
// saw allocated is pageable host memory, as the tracer takes it.
bool hostWaitsOnReturn(const CallEffect& effect, MemoryKind source, MemoryKind destination);

} // namespace streamrace::analyzer
