// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Entry points of NCCL 2.29-2.30 that the toolkit's nccl.h (2.28) does not declare, so they are
// declared here with NCCL's signatures (types the 2.28 header lacks are passed as opaque
// pointers or ints, as the C ABI sees them). Programs built against a newer NCCL reference
// them (PyTorch's ProcessGroupNCCL does), and a library loaded with RTLD_NOW must have every
// referenced symbol. What the emulator has a meaning for works; the device-side API (device
// communicators, signals, peer pointers into windows) and growing a communicator refuse with
// ncclInvalidUsage and a message for ncclGetLastError.
#include "api_state.h"

#include <cstdint>
#include <string>

using namespace streamrace::emu::nccl;

namespace {

ncclResult_t notEmulated(const char* api, const char* what) {
  return recordError(ncclInvalidUsage,
                     std::string("streamrace-emu nccl: ") + api + ": " + what + " is not emulated");
}

} // namespace

extern "C" {
ncclResult_t pncclCommGetUniqueId(ncclComm_t, ncclUniqueId*);
ncclResult_t pncclCommGrow(ncclComm_t, int, const ncclUniqueId*, int, ncclComm_t*, ncclConfig_t*);
ncclResult_t pncclCommSuspend(ncclComm_t, int);
ncclResult_t pncclCommResume(ncclComm_t);
ncclResult_t pncclCommMemStats(ncclComm_t, int, std::uint64_t*);
ncclResult_t pncclWinGetUserPtr(ncclComm_t, ncclWindow_t, void**);
ncclResult_t pncclDevCommCreate(ncclComm_t, const void*, void*);
ncclResult_t pncclDevCommDestroy(ncclComm_t, const void*);
ncclResult_t pncclGetLsaMultimemDevicePointer(ncclWindow_t, size_t, void**);
ncclResult_t pncclGetPeerDevicePointer(ncclWindow_t, size_t, int, void**);
ncclResult_t pncclPutSignal(const void*, size_t, ncclDataType_t, int, ncclWindow_t, size_t, int,
                            int, unsigned, ncclComm_t, cudaStream_t);
ncclResult_t pncclSignal(int, int, int, unsigned, ncclComm_t, cudaStream_t);
ncclResult_t pncclWaitSignal(int, void*, ncclComm_t, cudaStream_t);
}

// A fresh id, as ncclGetUniqueId gives, for the ranks that will join a grown communicator.
STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommGetUniqueId(ncclComm_t comm, ncclUniqueId* uniqueId) {
  if (comm == nullptr || uniqueId == nullptr) {
    return recordError(
        ncclInvalidArgument,
        "streamrace-emu nccl: ncclCommGetUniqueId: comm and uniqueId must not be NULL");
  }
  return pncclGetUniqueId(uniqueId);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommGrow(ncclComm_t, int, const ncclUniqueId*, int,
                                                  ncclComm_t*, ncclConfig_t*) {
  return notEmulated("ncclCommGrow", "adding ranks to a communicator");
}

// Suspending releases memory a real communicator holds for its transports; the emulated one
// holds none to release, so suspending and resuming change nothing.
STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommSuspend(ncclComm_t comm, int) {
  return comm == nullptr ? recordError(ncclInvalidArgument,
                                       "streamrace-emu nccl: ncclCommSuspend: comm is NULL")
                         : ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommResume(ncclComm_t comm) {
  return comm == nullptr
             ? recordError(ncclInvalidArgument, "streamrace-emu nccl: ncclCommResume: comm is NULL")
             : ncclSuccess;
}

// The emulated communicator keeps no device memory of its own: every statistic is zero.
STREAMRACE_NCCL_EXPORT ncclResult_t pncclCommMemStats(ncclComm_t comm, int, std::uint64_t* value) {
  if (comm == nullptr || value == nullptr) {
    return recordError(ncclInvalidArgument,
                       "streamrace-emu nccl: ncclCommMemStats: comm and value must not be NULL");
  }
  *value = 0;
  return ncclSuccess;
}

// A window is its buffer's address (ncclCommWindowRegister).
STREAMRACE_NCCL_EXPORT ncclResult_t pncclWinGetUserPtr(ncclComm_t comm, ncclWindow_t win,
                                                       void** outUserPtr) {
  if (comm == nullptr || outUserPtr == nullptr) {
    return recordError(
        ncclInvalidArgument,
        "streamrace-emu nccl: ncclWinGetUserPtr: comm and outUserPtr must not be NULL");
  }
  *outUserPtr = static_cast<void*>(win);
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclDevCommCreate(ncclComm_t, const void*, void*) {
  return notEmulated("ncclDevCommCreate", "the device-side API");
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclDevCommDestroy(ncclComm_t, const void*) {
  return notEmulated("ncclDevCommDestroy", "the device-side API");
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclGetLsaMultimemDevicePointer(ncclWindow_t, size_t, void**) {
  return notEmulated("ncclGetLsaMultimemDevicePointer", "multimem memory");
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclGetPeerDevicePointer(ncclWindow_t, size_t, int, void**) {
  return notEmulated("ncclGetPeerDevicePointer", "load/store access to a peer's window");
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclPutSignal(const void*, size_t, ncclDataType_t, int,
                                                   ncclWindow_t, size_t, int, int, unsigned,
                                                   ncclComm_t, cudaStream_t) {
  return notEmulated("ncclPutSignal", "one-sided communication");
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclSignal(int, int, int, unsigned, ncclComm_t, cudaStream_t) {
  return notEmulated("ncclSignal", "one-sided communication");
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclWaitSignal(int, void*, ncclComm_t, cudaStream_t) {
  return notEmulated("ncclWaitSignal", "one-sided communication");
}

extern "C" {
ncclResult_t ncclCommGetUniqueId(ncclComm_t, ncclUniqueId*)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommGetUniqueId);
ncclResult_t ncclCommGrow(ncclComm_t, int, const ncclUniqueId*, int, ncclComm_t*, ncclConfig_t*)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommGrow);
ncclResult_t ncclCommSuspend(ncclComm_t, int) STREAMRACE_NCCL_WEAK_ALIAS(ncclCommSuspend);
ncclResult_t ncclCommResume(ncclComm_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclCommResume);
ncclResult_t ncclCommMemStats(ncclComm_t, int, std::uint64_t*)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclCommMemStats);
ncclResult_t ncclWinGetUserPtr(ncclComm_t, ncclWindow_t, void**)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclWinGetUserPtr);
ncclResult_t ncclDevCommCreate(ncclComm_t, const void*, void*)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclDevCommCreate);
ncclResult_t ncclDevCommDestroy(ncclComm_t, const void*)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclDevCommDestroy);
ncclResult_t ncclGetLsaMultimemDevicePointer(ncclWindow_t, size_t, void**)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclGetLsaMultimemDevicePointer);
ncclResult_t ncclGetPeerDevicePointer(ncclWindow_t, size_t, int, void**)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclGetPeerDevicePointer);
ncclResult_t ncclPutSignal(const void*, size_t, ncclDataType_t, int, ncclWindow_t, size_t, int, int,
                           unsigned, ncclComm_t, cudaStream_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclPutSignal);
ncclResult_t ncclSignal(int, int, int, unsigned, ncclComm_t, cudaStream_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclSignal);
ncclResult_t ncclWaitSignal(int, void*, ncclComm_t, cudaStream_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclWaitSignal);
}
