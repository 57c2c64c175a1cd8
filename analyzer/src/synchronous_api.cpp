// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "synchronous_api.h"

#include "streamrace/api_model/host_wait.h"

namespace streamrace::analyzer {
namespace {

using api_model::MemorySpace;

// Memory the analysis never saw allocated is pageable host memory, as the tracer takes it.
MemorySpace memorySpace(MemoryKind kind) {
  switch (kind) {
  case MemoryKind::Unknown:
  case MemoryKind::Pageable:
    return MemorySpace::Pageable;
  case MemoryKind::Pinned:
    return MemorySpace::Pinned;
  case MemoryKind::Device:
    return MemorySpace::Device;
  case MemoryKind::Managed:
    return MemorySpace::Managed;
  }
  return MemorySpace::Pageable;
}

} // namespace

bool hostWaitsOnReturn(const CallEffect& effect, MemoryKind source, MemoryKind destination) {
  if (!effect.synchronousApi) return false;
  if (!effect.isCopy) return api_model::synchronousSetHoldsHost(memorySpace(destination));
  // A kind the analysis cannot evaluate: any of them may hold the host, so assume the wait.
  if (!effect.copyKind) return true;
  return api_model::synchronousCopyHoldsHost(*effect.copyKind, memorySpace(source),
                                             memorySpace(destination));
}

} // namespace streamrace::analyzer
