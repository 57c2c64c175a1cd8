// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "api_enqueue.h"

#include "link_model.h"
#include "reduction.h"

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

namespace streamrace::emu::nccl {
namespace {

struct PendingOperation {
  ncclComm* comm;
  cudaStream_t stream;
  bool isCollective;
  CollectiveArguments collective;
  PointToPointArguments transfer;
  PreMultiplier preMultiplier;
};

struct PendingJoin {
  ncclComm* comm;
  std::function<ncclResult_t()> join;
};

struct GroupState {
  int depth = 0;
  std::vector<PendingOperation> operations;
  std::vector<PendingJoin> joins;
};

thread_local GroupState group;

// What one host function executes: the operations of one communicator from one ncclGroupEnd (or
// one ungrouped call), collectives in call order, then all point-to-point transfers together.
//
// A task captured into a CUDA graph runs once per graph launch: it takes its tickets (sequence
// numbers) each time it runs rather than at enqueue, and the communicator keeps it alive.
struct StreamTask {
  std::shared_ptr<Communicator> communicator;
  std::shared_ptr<InFlightWork> inFlight; // null for a captured task
  std::vector<CollectiveCall> collectives;
  std::vector<PointToPointCall> transfers;
  bool ticketsAtRun = false;
};

void takeTickets(Communicator& communicator, std::vector<CollectiveCall>& collectives,
                 std::vector<PointToPointCall>& transfers) {
  for (CollectiveCall& call : collectives) {
    call.sequence = communicator.takeCollectiveSequence();
  }
  for (PointToPointCall& call : transfers) {
    call.messageIndex = communicator.takeMessageIndex(call.direction, call.peer);
  }
}

void CUDART_CB runStreamTask(void* data) {
  auto* task = static_cast<StreamTask*>(data);
  // A one-shot task is owned by this call; a captured one by its communicator.
  const std::unique_ptr<StreamTask> oneShot(task->ticketsAtRun ? nullptr : task);
  Communicator& communicator = *task->communicator;
  std::vector<CollectiveCall> collectives = task->collectives;
  std::vector<PointToPointCall> transfers = task->transfers;
  if (task->ticketsAtRun) {
    takeTickets(communicator, collectives, transfers);
  }
  bool succeeded = true;
  for (const CollectiveCall& call : collectives) {
    succeeded = communicator.runCollective(call) && succeeded;
  }
  if (!transfers.empty()) {
    succeeded = communicator.runPointToPoint(transfers) && succeeded;
  }
  if (!succeeded && !communicator.wasAborted() && communicator.claimFailureReport()) {
    reportAsynchronousFailure(communicator);
  }
  if (task->inFlight != nullptr) {
    task->inFlight->finished();
  }
}

ncclResult_t cudaFailure(const char* call, cudaError_t error) {
  return recordError(ncclUnhandledCudaError, std::string("streamrace-emu nccl: ") + call +
                                                 " failed: " + cudaGetErrorString(error));
}

// Makes `to` wait for the work enqueued on `from` so far, as NCCL does between its streams.
ncclResult_t joinStreams(cudaStream_t from, cudaStream_t to) {
  cudaEvent_t event = nullptr;
  cudaError_t error = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  if (error != cudaSuccess) {
    return cudaFailure("cudaEventCreateWithFlags", error);
  }
  error = cudaEventRecord(event, from);
  if (error == cudaSuccess) {
    error = cudaStreamWaitEvent(to, event, 0);
  }
  cudaEventDestroy(event);
  return error == cudaSuccess ? ncclSuccess
                              : cudaFailure("cudaEventRecord/cudaStreamWaitEvent", error);
}

// Enqueues one communicator's operations as one host function. When they use several streams,
// the function runs on the first after waiting for all of them, and all of them wait for it:
// the group behaves as one operation on every stream it touched (NCCL guide, "Group Calls").
ncclResult_t enqueueForCommunicator(ncclComm* comm,
                                    const std::vector<const PendingOperation*>& operations) {
  std::vector<cudaStream_t> streams;
  for (const PendingOperation* operation : operations) {
    if (std::find(streams.begin(), streams.end(), operation->stream) == streams.end()) {
      streams.push_back(operation->stream);
    }
  }
  const cudaStream_t executor = streams.front();
  for (std::size_t i = 1; i < streams.size(); ++i) {
    if (const ncclResult_t result = joinStreams(streams[i], executor); result != ncclSuccess) {
      return result;
    }
  }
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(executor, &capture) != cudaSuccess) {
    capture = cudaStreamCaptureStatusNone;
  }
  auto task = std::make_unique<StreamTask>();
  task->communicator = comm->communicator;
  task->ticketsAtRun = capture == cudaStreamCaptureStatusActive;
  for (const PendingOperation* operation : operations) {
    if (operation->isCollective) {
      const CollectiveArguments& a = operation->collective;
      task->collectives.push_back(CollectiveCall{a.kind, a.sendBuffer, a.receiveBuffer, a.count,
                                                 a.datatype, a.op, a.root, 0,
                                                 operation->preMultiplier});
    } else {
      const PointToPointArguments& a = operation->transfer;
      task->transfers.push_back(PointToPointCall{a.direction, a.sendBuffer, a.receiveBuffer,
                                                 a.count, a.datatype, a.peer, 0});
    }
  }
  if (!task->ticketsAtRun) {
    takeTickets(*comm->communicator, task->collectives, task->transfers);
    task->inFlight = comm->inFlight;
    comm->inFlight->started();
  }
  const cudaError_t error = cudaLaunchHostFunc(executor, runStreamTask, task.get());
  if (error != cudaSuccess) {
    if (task->inFlight != nullptr) {
      comm->inFlight->finished();
      // The tickets are taken: without this operation the ranks can no longer agree, so the
      // communicator stops here rather than timing out later.
      comm->communicator->abort();
    }
    return cudaFailure("cudaLaunchHostFunc", error);
  }
  if (task->ticketsAtRun) {
    comm->capturedTasks.push_back(std::shared_ptr<void>(std::move(task)));
  } else {
    static_cast<void>(task.release()); // runStreamTask owns it now
  }
  for (std::size_t i = 1; i < streams.size(); ++i) {
    if (const ncclResult_t result = joinStreams(executor, streams[i]); result != ncclSuccess) {
      return result;
    }
  }
  return ncclSuccess;
}

ncclResult_t enqueueAll(const std::vector<PendingOperation>& operations) {
  std::vector<ncclComm*> comms;
  for (const PendingOperation& operation : operations) {
    if (std::find(comms.begin(), comms.end(), operation.comm) == comms.end()) {
      comms.push_back(operation.comm);
    }
  }
  ncclResult_t firstError = ncclSuccess;
  for (ncclComm* comm : comms) {
    std::vector<const PendingOperation*> own;
    for (const PendingOperation& operation : operations) {
      if (operation.comm == comm) {
        own.push_back(&operation);
      }
    }
    if (comm->communicator == nullptr) {
      firstError = firstError != ncclSuccess ? firstError : comm->initResult;
      continue;
    }
    const ncclResult_t result = enqueueForCommunicator(comm, own);
    firstError = firstError != ncclSuccess ? firstError : result;
  }
  return firstError;
}

ncclResult_t submit(const PendingOperation& operation) {
  if (group.depth > 0) {
    group.operations.push_back(operation);
    return ncclSuccess;
  }
  return enqueueAll({operation});
}

ncclResult_t invalid(const std::string& message) {
  return recordError(ncclInvalidArgument, "streamrace-emu nccl: " + message);
}

// Checks shared by every operation; ncclSuccess means go on.
ncclResult_t validateCommon(ncclComm* comm, ncclDataType_t datatype, cudaStream_t stream,
                            const char* function) {
  if (comm == nullptr) {
    return invalid(std::string(function) + ": comm is NULL");
  }
  if (comm->communicator == nullptr && comm->initResult != ncclInProgress) {
    return recordError(ncclInvalidUsage, std::string("streamrace-emu nccl: ") + function +
                                             ": the communicator failed to initialize");
  }
  if (comm->communicator != nullptr && comm->communicator->asyncError() != ncclSuccess) {
    return recordError(comm->communicator->asyncError(),
                       std::string("streamrace-emu nccl: ") + function +
                           ": communicator has failed: " + comm->communicator->lastError());
  }
  if (!isValidDatatype(datatype)) {
    return invalid(std::string(function) + ": invalid datatype " + std::to_string(datatype));
  }
  unsigned int flags = 0;
  if (const cudaError_t error = cudaStreamGetFlags(stream, &flags); error != cudaSuccess) {
    return invalid(std::string(function) + ": invalid stream (" + cudaGetErrorString(error) + ")");
  }
  return ncclSuccess;
}

} // namespace

ncclResult_t submitCollective(ncclComm* comm, const CollectiveArguments& arguments,
                              cudaStream_t stream) {
  const char* function = collectiveInfo(arguments.kind).function;
  if (const ncclResult_t result = validateCommon(comm, arguments.datatype, stream, function);
      result != ncclSuccess) {
    return result;
  }
  PreMultiplier preMultiplier;
  CollectiveArguments resolved = arguments;
  if (collectiveInfo(arguments.kind).reducing && arguments.op >= ncclNumOps) {
    const auto index = static_cast<std::size_t>(arguments.op - ncclNumOps);
    const std::optional<PreMulSumOp> created =
        index < comm->preMulSumOps.size() ? comm->preMulSumOps[index] : std::nullopt;
    if (!created) {
      return invalid(std::string(function) + ": invalid reduction op " +
                     std::to_string(arguments.op));
    }
    if (created->datatype != arguments.datatype) {
      return invalid(std::string(function) + ": reduction op " + std::to_string(arguments.op) +
                     " was created for another datatype");
    }
    preMultiplier = created->multiplier;
    resolved.op = ncclSum;
  } else if (collectiveInfo(arguments.kind).reducing && !isValidReductionOp(arguments.op)) {
    return invalid(std::string(function) + ": invalid reduction op " +
                   std::to_string(arguments.op));
  }
  if (collectiveInfo(arguments.kind).rooted &&
      (arguments.root < 0 || arguments.root >= comm->rankCount)) {
    return invalid(std::string(function) + ": root " + std::to_string(arguments.root) +
                   " is not a rank of a communicator of " + std::to_string(comm->rankCount) +
                   " ranks");
  }
  if (arguments.count == 0) {
    return ncclSuccess; // NCCL returns at once for empty collectives; peers skip them too
  }
  const bool rootOnlySends =
      arguments.kind == CollectiveKind::Broadcast || arguments.kind == CollectiveKind::Scatter;
  const bool rootOnlyReceives =
      arguments.kind == CollectiveKind::Reduce || arguments.kind == CollectiveKind::Gather;
  if (arguments.sendBuffer == nullptr && (!rootOnlySends || comm->rank == arguments.root)) {
    return invalid(std::string(function) + ": sendbuff is NULL");
  }
  if (arguments.receiveBuffer == nullptr && (!rootOnlyReceives || comm->rank == arguments.root)) {
    return invalid(std::string(function) + ": recvbuff is NULL");
  }
  PendingOperation operation{comm, stream, true, resolved, {}, preMultiplier};
  return submit(operation);
}

ncclResult_t submitPointToPoint(ncclComm* comm, const PointToPointArguments& arguments,
                                cudaStream_t stream) {
  const char* function = arguments.direction == TransferDirection::Send ? "ncclSend" : "ncclRecv";
  if (const ncclResult_t result = validateCommon(comm, arguments.datatype, stream, function);
      result != ncclSuccess) {
    return result;
  }
  if (arguments.peer < 0 || arguments.peer >= comm->rankCount) {
    return invalid(std::string(function) + ": peer " + std::to_string(arguments.peer) +
                   " is not a rank of a communicator of " + std::to_string(comm->rankCount) +
                   " ranks");
  }
  if (arguments.count == 0) {
    return ncclSuccess;
  }
  if ((arguments.direction == TransferDirection::Send ? arguments.sendBuffer
                                                      : arguments.receiveBuffer) == nullptr) {
    return invalid(std::string(function) + ": buffer is NULL");
  }
  PendingOperation operation{comm, stream, false, {}, arguments, {}};
  return submit(operation);
}

ncclResult_t submitJoin(ncclComm* comm, std::function<ncclResult_t()> join) {
  if (group.depth > 0) {
    comm->initResult = ncclInProgress;
    group.joins.push_back(PendingJoin{comm, std::move(join)});
    return ncclSuccess;
  }
  return join();
}

ncclResult_t groupStart() {
  ++group.depth;
  return ncclSuccess;
}

ncclResult_t groupEnd() {
  if (group.depth == 0) {
    return recordError(
        ncclInvalidUsage,
        "streamrace-emu nccl: ncclGroupEnd called without a matching ncclGroupStart");
  }
  if (--group.depth > 0) {
    return ncclSuccess;
  }
  const std::vector<PendingJoin> joins = std::move(group.joins);
  const std::vector<PendingOperation> operations = std::move(group.operations);
  group.joins.clear();
  group.operations.clear();
  ncclResult_t firstError = ncclSuccess;
  std::vector<ncclResult_t> joinResults(joins.size(), ncclSuccess);
  std::vector<std::thread> threads;
  threads.reserve(joins.size());
  for (std::size_t i = 0; i < joins.size(); ++i) {
    threads.emplace_back([&, i] { joinResults[i] = joins[i].join(); });
  }
  for (std::size_t i = 0; i < threads.size(); ++i) {
    threads[i].join();
    firstError = firstError != ncclSuccess ? firstError : joinResults[i];
  }
  const ncclResult_t enqueued = enqueueAll(operations);
  return firstError != ncclSuccess ? firstError : enqueued;
}

ncclResult_t groupSimulateEnd(ncclSimInfo_t* info) {
  if (info == nullptr) {
    return invalid("ncclGroupSimulateEnd: simInfo is NULL");
  }
  if (group.depth != 1) {
    return recordError(ncclInvalidUsage, "streamrace-emu nccl: ncclGroupSimulateEnd must close the "
                                         "outermost ncclGroupStart");
  }
  group.depth = 0;
  const std::vector<PendingOperation> operations = std::move(group.operations);
  group.operations.clear();
  group.joins.clear();
  double seconds = 0;
  for (const PendingOperation& operation : operations) {
    const Communicator* communicator = operation.comm->communicator.get();
    if (communicator == nullptr) {
      continue;
    }
    const CommunicatorSettings& settings = communicator->settings();
    const std::vector<int>& nodes = communicator->nodeOfRank();
    if (operation.isCollective) {
      const CollectiveArguments& a = operation.collective;
      seconds += collectiveTraffic(settings.link, a.kind, a.count * datatypeSize(a.datatype),
                                   communicator->rank(), a.root, nodes)
                     .seconds;
    } else if (operation.transfer.peer != communicator->rank()) {
      const PointToPointArguments& a = operation.transfer;
      seconds += pointToPointTraffic(settings.link, a.count * datatypeSize(a.datatype),
                                     nodes[communicator->rank()], nodes[a.peer])
                     .seconds;
    }
  }
  info->estimatedTime = static_cast<float>(seconds * 1e6);
  return ncclSuccess;
}

} // namespace streamrace::emu::nccl
