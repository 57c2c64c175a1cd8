// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// State behind the public handles: what an ncclComm_t points to, the work it has in flight, and
// how errors reach the caller (return codes, ncclGetLastError) or end the process.
#pragma once

#include "communicator.h"

#include <nccl.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#define STREAMRACE_NCCL_EXPORT extern "C" __attribute__((visibility("default")))
// NCCL's profiling pattern: strong pncclX does the work, weak ncclX may be interposed.
#define STREAMRACE_NCCL_WEAK_ALIAS(name)                                                           \
  __attribute__((visibility("default"), weak, alias("p" #name)))

namespace streamrace::emu::nccl {

// Host functions enqueued on streams and not yet run, so ncclCommFinalize can wait for them.
class InFlightWork {
public:
  void started();
  void finished();
  // False when the work did not drain within timeoutMs.
  bool waitUntilDrained(std::int64_t timeoutMs);

private:
  std::mutex mutex_;
  std::condition_variable drained_;
  std::uint64_t count_ = 0;
};

// Records message as the process's last NCCL error (ncclGetLastError) and returns result.
ncclResult_t recordError(ncclResult_t result, const std::string& message);
std::string lastErrorMessage();

// Called when an enqueued operation failed on its stream, where nobody can return an error: the
// message goes to stderr, and unless STREAMRACE_EMU_NCCL_ON_ERROR=continue the process exits with
// status 1 (after writing link statistics), like a real NCCL watchdog tearing the job down.
// With "continue" the communicator stays failed: ncclCommGetAsyncError reports ncclSystemError.
void reportAsynchronousFailure(const Communicator& communicator);

// Node of a rank using `device`: $STREAMRACE_EMU_NODE_RANK (set per process by the launcher)
// plus device / $STREAMRACE_EMU_GPUS_PER_NODE for processes that drive several devices.
int nodeOfDevice(int device);

} // namespace streamrace::emu::nccl

namespace streamrace::emu::nccl {

// An op made by ncclRedOpCreatePreMulSum; its ncclRedOp_t is ncclNumOps + its index.
struct PreMulSumOp {
  ncclDataType_t datatype;
  PreMultiplier multiplier;
};

} // namespace streamrace::emu::nccl

struct ncclComm {
  std::shared_ptr<streamrace::emu::nccl::Communicator> communicator; // null until joined
  std::shared_ptr<streamrace::emu::nccl::InFlightWork> inFlight =
      std::make_shared<streamrace::emu::nccl::InFlightWork>();
  int rankCount = 0;
  int rank = 0;
  int device = 0;
  std::uint64_t splitsDone = 0;
  ncclResult_t initResult = ncclSuccess; // of a join deferred to ncclGroupEnd
  std::vector<std::optional<streamrace::emu::nccl::PreMulSumOp>> preMulSumOps;
  // Operations captured into CUDA graphs: alive until the communicator is destroyed, since a
  // graph may be launched any number of times.
  std::vector<std::shared_ptr<void>> capturedTasks;
};
