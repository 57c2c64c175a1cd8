// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "synchronous_api.h"

namespace streamrace::analyzer {
namespace {

using api_model::CopyKind;

bool isHostMemory(MemoryKind kind) {
  return kind == MemoryKind::Pageable || kind == MemoryKind::Pinned || kind == MemoryKind::Unknown;
}

// cudaMemcpyDefault: the direction the pointers' memory gives.
CopyKind resolvedDirection(CopyKind kind, MemoryKind source, MemoryKind destination) {
  if (kind != CopyKind::Default) return kind;
  const bool fromHost = isHostMemory(source);
  const bool toHost = isHostMemory(destination);
  if (fromHost) return toHost ? CopyKind::HostToHost : CopyKind::HostToDevice;
  return toHost ? CopyKind::DeviceToHost : CopyKind::DeviceToDevice;
}

} // namespace

bool hostWaitsOnReturn(const CallEffect& effect, MemoryKind source, MemoryKind destination) {
  if (!effect.synchronousApi) return false;
  if (!effect.isCopy)
    return destination == MemoryKind::Pinned || destination == MemoryKind::Managed;
  if (source == MemoryKind::Managed || destination == MemoryKind::Managed) return true;
  // A kind the analysis cannot evaluate: any of them may hold the host, so assume the wait.
  if (!effect.copyKind) return true;
  switch (resolvedDirection(*effect.copyKind, source, destination)) {
  case CopyKind::DeviceToHost:
  case CopyKind::HostToHost:
    return true;
  case CopyKind::HostToDevice:
    // From pageable memory the call returns once the data is staged; the device write is pending.
    return source == MemoryKind::Pinned;
  case CopyKind::DeviceToDevice:
  case CopyKind::Default:
    return false;
  }
  return true;
}

} // namespace streamrace::analyzer
