// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// docs/semantics.md rule 7: whether the host waits for a copy or set, by direction and by the
// memory on each side: the API model's table (streamrace/api_model/host_wait.h), which the
// tracer's engine reads too.
#pragma once

#include "call_model.h"

#include "clang/AST/Type.h"

namespace streamrace::analyzer {

// Whether the host waits for `effect`'s work when the call returns, given the memory of the
// bytes it reads (`source`, copies only) and writes (`destination`). For a synchronous API, memory
// the analysis never saw allocated is pageable host memory, as the tracer takes it. An
// asynchronous copy holds the host only into memory seen allocated pageable: the tracer sees
// every allocation, the analysis does not, and a caller's buffer is most often pinned.
bool hostWaitsOnReturn(const CallEffect& effect, MemoryKind source, MemoryKind destination);

// Whether a value of `type` owns a buffer of pageable host memory its data() names: std::vector
// and std::basic_string with the standard allocator (another allocator may pin it).
bool ownsPageableBuffer(clang::QualType type);

} // namespace streamrace::analyzer
