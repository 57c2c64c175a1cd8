// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The communicator half of the public API: versions, ids, init, split, teardown, queries.
#include "api_enqueue.h"
#include "api_state.h"
#include "proxy_thread.h"
#include "unique_id.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <thread>
#include <tuple>
#include <vector>

using namespace streamrace::emu::nccl;

namespace {

ncclResult_t invalid(const std::string& message) {
  return recordError(ncclInvalidArgument, "streamrace-emu nccl: " + message);
}

int currentDevice() {
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess ? device : 0;
}

// Creates the handle at once (its rank, size and device are known); joining the rendezvous
// happens now or at ncclGroupEnd.
ncclResult_t initRank(ncclComm_t* newcomm, int rankCount, const std::string& segmentName,
                      std::string displayName, int rank, int device) {
  auto comm = std::make_unique<ncclComm>();
  comm->rankCount = rankCount;
  comm->rank = rank;
  comm->device = device;
  ncclComm* handle = comm.get();
  const auto join = [handle, segmentName, displayName = std::move(displayName)]() -> ncclResult_t {
    try {
      handle->communicator =
          Communicator::join(segmentName, displayName, handle->rankCount, handle->rank,
                             RankPlacement{handle->device, nodeOfDevice(handle->device)},
                             CommunicatorSettings::fromEnvironment());
      if (!runProxySetUp(handle->device)) {
        throw CommunicatorError(ncclUnhandledCudaError,
                                "the proxy thread's CUDA calls failed on device " +
                                    std::to_string(handle->device));
      }
      handle->initResult = ncclSuccess;
    } catch (const CommunicatorError& error) {
      handle->initResult =
          recordError(error.result(), std::string("streamrace-emu nccl: ") + error.what());
    }
    return handle->initResult;
  };
  const ncclResult_t result = submitJoin(handle, join);
  if (result != ncclSuccess) {
    return result;
  }
  *newcomm = comm.release(); // owned by the caller until ncclCommDestroy/ncclCommAbort
  return ncclSuccess;
}

ncclResult_t initRankChecked(ncclComm_t* newcomm, int nranks, const ncclUniqueId& commId, int rank,
                             const ncclConfig_t* config) {
  if (newcomm == nullptr) {
    return invalid("ncclCommInitRank: newcomm is NULL");
  }
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    return invalid("ncclCommInitRank: rank " + std::to_string(rank) +
                   " is not in [0, nranks=" + std::to_string(nranks) + ")");
  }
  const std::optional<std::string> segmentName = segmentNameOf(commId);
  if (!segmentName) {
    return invalid("ncclCommInitRank: the unique id was not produced by ncclGetUniqueId");
  }
  std::string displayName = displayNameOf(*segmentName);
  if (config != nullptr && config->commName != nullptr) {
    displayName = std::string(config->commName) + " (" + displayName + ")";
  }
  return initRank(newcomm, nranks, *segmentName, std::move(displayName), rank, currentDevice());
}

} // namespace

STREAMRACE_NCCL_EXPORT ncclResult_t pncclGetVersion(int* version) {
  if (version == nullptr) {
    return invalid("ncclGetVersion: version is NULL");
  }
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclGetUniqueId(ncclUniqueId* uniqueId) {
  if (uniqueId == nullptr) {
    return invalid("ncclGetUniqueId: uniqueId is NULL");
  }
  *uniqueId = uniqueIdFor(newSegmentName());
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommInitRankConfig(ncclComm_t* comm, int nranks,
                                                            ncclUniqueId commId, int rank,
                                                            ncclConfig_t* config) {
  return initRankChecked(comm, nranks, commId, rank, config);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommInitRank(ncclComm_t* comm, int nranks,
                                                      ncclUniqueId commId, int rank) {
  return initRankChecked(comm, nranks, commId, rank, nullptr);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommInitRankScalable(ncclComm_t* newcomm, int nranks,
                                                              int myrank, int nId,
                                                              ncclUniqueId* commIds,
                                                              ncclConfig_t* config) {
  if (nId < 1 || commIds == nullptr) {
    return invalid("ncclCommInitRankScalable: needs at least one unique id");
  }
  // Several ids only spread NCCL's bootstrap load; the first names the rendezvous.
  return initRankChecked(newcomm, nranks, commIds[0], myrank, config);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommInitAll(ncclComm_t* comms, int ndev,
                                                     const int* devlist) {
  if (comms == nullptr || ndev < 1) {
    return invalid("ncclCommInitAll: needs a comm array and ndev >= 1");
  }
  const std::string segmentName = randomSegmentName();
  std::vector<ncclResult_t> results(ndev, ncclSuccess);
  std::vector<std::thread> ranks;
  ranks.reserve(static_cast<std::size_t>(ndev));
  // Ranks join concurrently: each blocks until all have arrived.
  for (int rank = 0; rank < ndev; ++rank) {
    ranks.emplace_back([&, rank] {
      results[rank] = initRank(&comms[rank], ndev, segmentName, displayNameOf(segmentName), rank,
                               devlist != nullptr ? devlist[rank] : rank);
    });
  }
  for (std::thread& rank : ranks) {
    rank.join();
  }
  for (const ncclResult_t result : results) {
    if (result != ncclSuccess) {
      return result;
    }
  }
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommSplit(ncclComm_t comm, int color, int key,
                                                   ncclComm_t* newcomm, ncclConfig_t* config) {
  if (comm == nullptr || newcomm == nullptr || comm->communicator == nullptr) {
    return invalid("ncclCommSplit: comm and newcomm must be valid, initialized handles");
  }
  if (color < 0 && color != NCCL_SPLIT_NOCOLOR) {
    return invalid("ncclCommSplit: color must be non-negative or NCCL_SPLIT_NOCOLOR");
  }
  std::vector<BootstrapRecord> members;
  try {
    members = comm->communicator->bootstrapAllGather(BootstrapRecord{{color, key, comm->rank, 0}});
  } catch (const CommunicatorError& error) {
    return recordError(error.result(),
                       std::string("streamrace-emu nccl: ncclCommSplit: ") + error.what());
  }
  const std::uint64_t splitIndex = comm->splitsDone++;
  *newcomm = nullptr;
  if (color == NCCL_SPLIT_NOCOLOR) {
    return ncclSuccess;
  }
  // New ranks follow key, ties broken by the old rank.
  std::vector<std::tuple<std::int64_t, std::int64_t>> sameColor;
  for (const BootstrapRecord& member : members) {
    if (member.values[0] == color) {
      sameColor.emplace_back(member.values[1], member.values[2]);
    }
  }
  std::sort(sameColor.begin(), sameColor.end());
  const auto self = std::find(sameColor.begin(), sameColor.end(),
                              std::tuple<std::int64_t, std::int64_t>(key, comm->rank));
  const std::string segmentName =
      derivedSegmentName(comm->communicator->segmentName(), splitIndex, color);
  std::string displayName = displayNameOf(segmentName);
  if (config != nullptr && config->commName != nullptr) {
    displayName = std::string(config->commName) + " (" + displayName + ")";
  }
  return initRank(newcomm, static_cast<int>(sameColor.size()), segmentName, std::move(displayName),
                  static_cast<int>(self - sameColor.begin()), comm->device);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommShrink(ncclComm_t comm, int* excludeRanksList,
                                                    int excludeRanksCount, ncclComm_t* newcomm,
                                                    ncclConfig_t* config, int shrinkFlags) {
  if (comm == nullptr || (excludeRanksCount > 0 && excludeRanksList == nullptr)) {
    return invalid("ncclCommShrink: comm and the exclude list must be valid");
  }
  if ((shrinkFlags & NCCL_SHRINK_ABORT) != 0 && comm->communicator != nullptr) {
    comm->communicator->abort();
  }
  const bool excluded = std::find(excludeRanksList, excludeRanksList + excludeRanksCount,
                                  comm->rank) != excludeRanksList + excludeRanksCount;
  return pncclCommSplit(comm, excluded ? NCCL_SPLIT_NOCOLOR : 0, comm->rank, newcomm, config);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommFinalize(ncclComm_t comm) {
  if (comm == nullptr) {
    return invalid("ncclCommFinalize: comm is NULL");
  }
  const std::int64_t timeoutMs = comm->communicator != nullptr
                                     ? comm->communicator->settings().timeoutMs
                                     : CommunicatorSettings::fromEnvironment().timeoutMs;
  // Each pending operation has its own watchdog; this bound only guards against a stream that
  // never reaches the operation at all.
  if (!comm->inFlight->waitUntilDrained(2 * timeoutMs + 1000)) {
    return recordError(
        ncclSystemError,
        "streamrace-emu nccl: ncclCommFinalize: operations enqueued on rank " +
            std::to_string(comm->rank) +
            " never ran: their streams are blocked (waiting on work that never completes?)");
  }
  return comm->communicator != nullptr ? comm->communicator->asyncError() : comm->initResult;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommDestroy(ncclComm_t comm) {
  if (comm == nullptr) {
    return ncclSuccess;
  }
  const std::unique_ptr<ncclComm> owned(comm);
  // Host functions still queued keep the communicator's state alive through their own references.
  const ncclResult_t finalized = pncclCommFinalize(comm);
  return finalized == ncclSystemError ? ncclSuccess : finalized;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommAbort(ncclComm_t comm) {
  if (comm == nullptr) {
    return ncclSuccess;
  }
  const std::unique_ptr<ncclComm> owned(comm);
  if (comm->communicator != nullptr) {
    comm->communicator->abort();
  }
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommRevoke(ncclComm_t comm, int revokeFlags) {
  if (comm == nullptr || revokeFlags != NCCL_REVOKE_DEFAULT) {
    return invalid("ncclCommRevoke: needs a valid comm and NCCL_REVOKE_DEFAULT");
  }
  if (comm->communicator != nullptr) {
    comm->communicator->abort();
  }
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT const char* pncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclUnhandledCudaError:
    return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
  case ncclSystemError:
    return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
  case ncclInternalError:
    return "internal error - please report this issue to the NCCL developers";
  case ncclInvalidArgument:
    return "invalid argument (run with NCCL_DEBUG=WARN for details)";
  case ncclInvalidUsage:
    return "invalid usage (run with NCCL_DEBUG=WARN for details)";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  case ncclInProgress:
    return "NCCL operation in progress";
  default:
    return "unknown result code";
  }
}

STREAMRACE_NCCL_EXPORT const char* pncclGetLastError(ncclComm_t) {
  // The string must outlive the call, as NCCL's does; one per thread keeps that without locks.
  thread_local std::string copy;
  copy = lastErrorMessage();
  return copy.c_str();
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommGetAsyncError(ncclComm_t comm,
                                                           ncclResult_t* asyncError) {
  if (comm == nullptr || asyncError == nullptr) {
    return invalid("ncclCommGetAsyncError: comm and asyncError must not be NULL");
  }
  *asyncError = comm->communicator != nullptr ? comm->communicator->asyncError() : comm->initResult;
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommCount(const ncclComm_t comm, int* count) {
  if (comm == nullptr || count == nullptr) {
    return invalid("ncclCommCount: comm and count must not be NULL");
  }
  *count = comm->rankCount;
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommCuDevice(const ncclComm_t comm, int* device) {
  if (comm == nullptr || device == nullptr) {
    return invalid("ncclCommCuDevice: comm and device must not be NULL");
  }
  *device = comm->device;
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommUserRank(const ncclComm_t comm, int* rank) {
  if (comm == nullptr || rank == nullptr) {
    return invalid("ncclCommUserRank: comm and rank must not be NULL");
  }
  *rank = comm->rank;
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclMemAlloc(void** ptr, size_t size) {
  if (ptr == nullptr) {
    return invalid("ncclMemAlloc: ptr is NULL");
  }
  const cudaError_t error = cudaMalloc(ptr, size);
  return error == cudaSuccess ? ncclSuccess
                              : recordError(ncclUnhandledCudaError,
                                            std::string("streamrace-emu nccl: ncclMemAlloc: ") +
                                                cudaGetErrorString(error));
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclMemFree(void* ptr) {
  const cudaError_t error = cudaFree(ptr);
  return error == cudaSuccess ? ncclSuccess
                              : recordError(ncclUnhandledCudaError,
                                            std::string("streamrace-emu nccl: ncclMemFree: ") +
                                                cudaGetErrorString(error));
}

// Registration only speeds up real transports; every buffer works unregistered here.
STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommRegister(const ncclComm_t comm, void* buff, size_t,
                                                      void** handle) {
  if (comm == nullptr || handle == nullptr) {
    return invalid("ncclCommRegister: comm and handle must not be NULL");
  }
  *handle = buff;
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommDeregister(const ncclComm_t comm, void*) {
  return comm == nullptr ? invalid("ncclCommDeregister: comm is NULL") : ncclSuccess;
}

// Symmetric windows only matter to the device-side API, which the emulator does not provide; the
// token is the buffer's address so distinct buffers get distinct windows.
STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommWindowRegister(ncclComm_t comm, void* buff, size_t,
                                                            ncclWindow_t* win, int) {
  if (comm == nullptr || win == nullptr) {
    return invalid("ncclCommWindowRegister: comm and win must not be NULL");
  }
  *win = static_cast<ncclWindow_t>(buff);
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t) {
  return comm == nullptr ? invalid("ncclCommWindowDeregister: comm is NULL") : ncclSuccess;
}

STREAMRACE_NCCL_EXPORT void pncclResetDebugInit() {}

extern "C" {
ncclResult_t ncclGetVersion(int*) STREAMRACE_NCCL_WEAK_ALIAS(ncclGetVersion);
ncclResult_t ncclGetUniqueId(ncclUniqueId*) STREAMRACE_NCCL_WEAK_ALIAS(ncclGetUniqueId);
ncclResult_t ncclCommInitRankConfig(ncclComm_t*, int, ncclUniqueId, int, ncclConfig_t*)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommInitRankConfig);
ncclResult_t ncclCommInitRank(ncclComm_t*, int, ncclUniqueId, int)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommInitRank);
ncclResult_t ncclCommInitRankScalable(ncclComm_t*, int, int, int, ncclUniqueId*, ncclConfig_t*)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommInitRankScalable);
ncclResult_t ncclCommInitAll(ncclComm_t*, int, const int*)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommInitAll);
ncclResult_t ncclCommSplit(ncclComm_t, int, int, ncclComm_t*, ncclConfig_t*)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommSplit);
ncclResult_t ncclCommShrink(ncclComm_t, int*, int, ncclComm_t*, ncclConfig_t*, int)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommShrink);
ncclResult_t ncclCommFinalize(ncclComm_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclCommFinalize);
ncclResult_t ncclCommDestroy(ncclComm_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclCommDestroy);
ncclResult_t ncclCommAbort(ncclComm_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclCommAbort);
ncclResult_t ncclCommRevoke(ncclComm_t, int) STREAMRACE_NCCL_WEAK_ALIAS(ncclCommRevoke);
const char* ncclGetErrorString(ncclResult_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclGetErrorString);
const char* ncclGetLastError(ncclComm_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclGetLastError);
ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t*)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommGetAsyncError);
ncclResult_t ncclCommCount(const ncclComm_t, int*) STREAMRACE_NCCL_WEAK_ALIAS(ncclCommCount);
ncclResult_t ncclCommCuDevice(const ncclComm_t, int*) STREAMRACE_NCCL_WEAK_ALIAS(ncclCommCuDevice);
ncclResult_t ncclCommUserRank(const ncclComm_t, int*) STREAMRACE_NCCL_WEAK_ALIAS(ncclCommUserRank);
ncclResult_t ncclMemAlloc(void**, size_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclMemAlloc);
ncclResult_t ncclMemFree(void*) STREAMRACE_NCCL_WEAK_ALIAS(ncclMemFree);
ncclResult_t ncclCommRegister(const ncclComm_t, void*, size_t, void**)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommRegister);
ncclResult_t ncclCommDeregister(const ncclComm_t, void*)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommDeregister);
ncclResult_t ncclCommWindowRegister(ncclComm_t, void*, size_t, ncclWindow_t*, int)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommWindowRegister);
ncclResult_t ncclCommWindowDeregister(ncclComm_t, ncclWindow_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommWindowDeregister);
void ncclResetDebugInit() STREAMRACE_NCCL_WEAK_ALIAS(ncclResetDebugInit);
}
