// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "operation.h"

namespace streamrace::emu::nccl {

const char* collectiveName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllGather:
    return "ncclAllGather";
  case CollectiveKind::ReduceScatter:
    return "ncclReduceScatter";
  case CollectiveKind::AllReduce:
    return "ncclAllReduce";
  case CollectiveKind::Broadcast:
    return "ncclBroadcast";
  case CollectiveKind::Reduce:
    return "ncclReduce";
  case CollectiveKind::AlltoAll:
    return "ncclAlltoAll";
  case CollectiveKind::Gather:
    return "ncclGather";
  case CollectiveKind::Scatter:
    return "ncclScatter";
  }
  return "(unknown collective)";
}

bool isRooted(CollectiveKind kind) {
  return kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce ||
         kind == CollectiveKind::Gather || kind == CollectiveKind::Scatter;
}

bool isReducing(CollectiveKind kind) {
  return kind == CollectiveKind::ReduceScatter || kind == CollectiveKind::AllReduce ||
         kind == CollectiveKind::Reduce;
}

} // namespace streamrace::emu::nccl
