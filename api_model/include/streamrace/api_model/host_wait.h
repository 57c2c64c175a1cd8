// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// docs/semantics.md rule 7: whether the host waits, when a synchronous copy or set returns, for
// the work it enqueued. The one statement of the rule: the analyzer (analyzer/src/
// synchronous_api.cpp) and the tracer's engine (runtime/src/engine/engine.cpp) both ask here.
#pragma once

#include "streamrace/api_model/api_model.h"

#include <cstdint>

namespace streamrace::api_model {

// The memory a pointer's bytes live in, as far as rule 7 tells them apart. Memory nobody saw
// allocated is pageable host memory; pool and caching-allocator blocks are device memory.
enum class MemorySpace : std::uint8_t { Pageable, Pinned, Device, Managed };

constexpr bool isHostMemory(MemorySpace space) {
  return space == MemorySpace::Pageable || space == MemorySpace::Pinned;
}

// cudaMemcpyDefault: the direction the pointers' memory gives (unified addressing).
constexpr CopyKind resolvedCopyKind(CopyKind kind, MemorySpace source, MemorySpace destination) {
  if (kind != CopyKind::Default) return kind;
  const bool fromHost = isHostMemory(source);
  const bool toHost = isHostMemory(destination);
  if (fromHost) return toHost ? CopyKind::HostToHost : CopyKind::HostToDevice;
  return toHost ? CopyKind::DeviceToHost : CopyKind::DeviceToDevice;
}

// cudaMemcpy and its 2D/3D/symbol/peer forms (CUDA runtime API, "API synchronization behavior").
constexpr bool synchronousCopyHoldsHost(CopyKind kind, MemorySpace source,
                                        MemorySpace destination) {
  if (source == MemorySpace::Managed || destination == MemorySpace::Managed) return true;
  switch (resolvedCopyKind(kind, source, destination)) {
  case CopyKind::DeviceToHost:
  case CopyKind::HostToHost:
    return true;
  case CopyKind::HostToDevice:
    // From pageable memory the call returns once the data is staged; the device write is pending.
    return source == MemorySpace::Pinned;
  case CopyKind::DeviceToDevice:
  case CopyKind::Default:
    return false;
  }
  return true;
}

// cudaMemcpyAsync and its 2D/3D/peer forms: they return before the copy lands, except a copy
// from the device into pageable host memory, which the driver stages and finishes before
// returning (older CUDA documentation guarantees it; the current one says it "might" be so, which
// is why the tracer has a strict reading that drops this wait).
constexpr bool asynchronousCopyHoldsHost(CopyKind kind, MemorySpace source,
                                         MemorySpace destination) {
  return resolvedCopyKind(kind, source, destination) == CopyKind::DeviceToHost &&
         destination == MemorySpace::Pageable;
}

// cudaMemset and its 2D/3D forms: synchronous only when they write host-visible memory.
constexpr bool synchronousSetHoldsHost(MemorySpace destination) {
  return destination == MemorySpace::Pinned || destination == MemorySpace::Managed;
}

} // namespace streamrace::api_model
