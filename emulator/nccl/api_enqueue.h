// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Putting operations on streams. Every operation becomes one host function
// (cudaLaunchHostFunc) on its stream, so it runs exactly when the stream reaches it: after the
// stream's earlier work and any events the stream waits on, before its later work. Between
// ncclGroupStart and ncclGroupEnd operations are collected and enqueued at ncclGroupEnd.
#pragma once

#include "api_state.h"
#include "operation.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <functional>

namespace streamrace::emu::nccl {

struct CollectiveArguments {
  CollectiveKind kind;
  const void* sendBuffer;
  void* receiveBuffer;
  std::size_t count;
  ncclDataType_t datatype;
  ncclRedOp_t op;
  int root;
};

struct PointToPointArguments {
  TransferDirection direction;
  const void* sendBuffer;
  void* receiveBuffer;
  std::size_t count;
  ncclDataType_t datatype;
  int peer;
};

// Validate, then enqueue now or at the end of the caller's group.
ncclResult_t submitCollective(ncclComm* comm, const CollectiveArguments& arguments,
                              cudaStream_t stream);
ncclResult_t submitPointToPoint(ncclComm* comm, const PointToPointArguments& arguments,
                                cudaStream_t stream);
// Runs join(comm) now, or in parallel with the group's other joins at ncclGroupEnd (a single
// thread initializing several ranks must not block on the first).
ncclResult_t submitJoin(ncclComm* comm, std::function<ncclResult_t()> join);

ncclResult_t groupStart();
ncclResult_t groupEnd();
// Ends the group without running it, reporting the link model's estimate in microseconds.
ncclResult_t groupSimulateEnd(ncclSimInfo_t* info);

} // namespace streamrace::emu::nccl
