// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The driver's own stream, event, memory, copy and set calls, for programs that use the driver
// API directly: the runtime's work (runtime_operations.h, copy_operations.h) between the
// driver-domain callbacks. A zero stream is the legacy default stream, as for the driver's
// plain (non-_ptsz) entry points; CUdeviceptr values are the runtime's unified addresses.
#include "driver_entry.h"

#include "copy_operations.h"
#include "driver_tracing.h"
#include "runtime_operations.h"

using namespace streamrace::emu;

namespace {

constexpr DefaultStream kLegacy = DefaultStream::Legacy;

void* address(CUdeviceptr pointer) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(pointer));
}

CUresult copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, CUstream stream,
              ApiFlavor flavor) {
  return driverResult(copyOnStream(dst, src, bytes, kind, stream, kLegacy, flavor));
}

CUresult set(CUdeviceptr dst, unsigned char value, std::size_t bytes, CUstream stream,
             ApiFlavor flavor) {
  return driverResult(setOnStream(address(dst), value, bytes, stream, kLegacy, flavor));
}

// The driver's allocations hand out CUdeviceptr integers where the runtime's give void*.
template <typename Allocate> CUresult allocate(CUdeviceptr* pointer, Allocate&& allocate) {
  if (pointer == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  void* memory = nullptr;
  const cudaError_t error = allocate(&memory);
  *pointer = reinterpret_cast<std::uintptr_t>(memory);
  return driverResult(error);
}

} // namespace

extern "C" {

CUresult streamraceEmuDriverMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemcpy,
      copy(address(dst), address(src), bytes, cudaMemcpyDefault, nullptr, ApiFlavor::Synchronous),
      dst, src, bytes);
}

CUresult streamraceEmuDriverMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                        CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemcpyAsync,
      copy(address(dst), address(src), bytes, cudaMemcpyDefault, stream, ApiFlavor::Asynchronous),
      dst, src, bytes, stream);
}

CUresult streamraceEmuDriverMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemcpyHtoD_v2,
      copy(address(dst), src, bytes, cudaMemcpyHostToDevice, nullptr, ApiFlavor::Synchronous), dst,
      src, bytes);
}

CUresult streamraceEmuDriverMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemcpyDtoH_v2,
      copy(dst, address(src), bytes, cudaMemcpyDeviceToHost, nullptr, ApiFlavor::Synchronous), dst,
      src, bytes);
}

CUresult streamraceEmuDriverMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  STREAMRACE_EMU_DRIVER_TRACED(cuMemcpyDtoD_v2,
                               copy(address(dst), address(src), bytes, cudaMemcpyDeviceToDevice,
                                    nullptr, ApiFlavor::Synchronous),
                               dst, src, bytes);
}

CUresult streamraceEmuDriverMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes,
                                            CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemcpyHtoDAsync_v2,
      copy(address(dst), src, bytes, cudaMemcpyHostToDevice, stream, ApiFlavor::Asynchronous), dst,
      src, bytes, stream);
}

CUresult streamraceEmuDriverMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes,
                                            CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemcpyDtoHAsync_v2,
      copy(dst, address(src), bytes, cudaMemcpyDeviceToHost, stream, ApiFlavor::Asynchronous), dst,
      src, bytes, stream);
}

CUresult streamraceEmuDriverMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                            CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(cuMemcpyDtoDAsync_v2,
                               copy(address(dst), address(src), bytes, cudaMemcpyDeviceToDevice,
                                    stream, ApiFlavor::Asynchronous),
                               dst, src, bytes, stream);
}

CUresult streamraceEmuDriverMemsetD8(CUdeviceptr dst, unsigned char value, size_t count) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemsetD8_v2, set(dst, value, count, nullptr, ApiFlavor::Synchronous), dst, value, count);
}

CUresult streamraceEmuDriverMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
                                          CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(cuMemsetD8Async,
                               set(dst, value, count, stream, ApiFlavor::Asynchronous), dst, value,
                               count, stream);
}

CUresult streamraceEmuDriverLaunchHostFunc(CUstream stream, CUhostFn function, void* userData) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuLaunchHostFunc, driverResult(launchHostFunction(stream, function, userData, kLegacy)),
      stream, function, userData);
}

CUresult streamraceEmuDriverEventRecord(CUevent event, CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(cuEventRecord, driverResult(recordEvent(event, stream, 0, kLegacy)),
                               event, stream);
}

CUresult streamraceEmuDriverEventRecordWithFlags(CUevent event, CUstream stream,
                                                 unsigned int flags) {
  STREAMRACE_EMU_DRIVER_TRACED(cuEventRecordWithFlags,
                               driverResult(recordEvent(event, stream, flags, kLegacy)), event,
                               stream, flags);
}

CUresult streamraceEmuDriverStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  STREAMRACE_EMU_DRIVER_TRACED(cuStreamWaitEvent,
                               driverResult(waitEvent(stream, event, flags, kLegacy)), stream,
                               event, flags);
}

CUresult streamraceEmuDriverStreamSynchronize(CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(cuStreamSynchronize,
                               driverResult(synchronizeStream(stream, kLegacy)), stream);
}

CUresult streamraceEmuDriverStreamQuery(CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(cuStreamQuery, driverResult(queryStream(stream, kLegacy)), stream);
}

CUresult streamraceEmuDriverEventSynchronize(CUevent event) {
  STREAMRACE_EMU_DRIVER_TRACED(cuEventSynchronize, driverResult(synchronizeEvent(event)), event);
}

CUresult streamraceEmuDriverEventQuery(CUevent event) {
  STREAMRACE_EMU_DRIVER_TRACED(cuEventQuery, driverResult(queryEvent(event)), event);
}

CUresult streamraceEmuDriverMemAlloc(CUdeviceptr* pointer, size_t bytes) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemAlloc_v2,
      allocate(pointer, [&](void** memory) { return allocateDevice(memory, bytes); }), pointer,
      bytes);
}

CUresult streamraceEmuDriverMemAllocManaged(CUdeviceptr* pointer, size_t bytes,
                                            unsigned int flags) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemAllocManaged,
      allocate(pointer, [&](void** memory) { return mallocManaged(memory, bytes, flags); }),
      pointer, bytes, flags);
}

CUresult streamraceEmuDriverMemAllocHost(void** pointer, size_t bytes) {
  STREAMRACE_EMU_DRIVER_TRACED(cuMemAllocHost_v2, driverResult(hostAlloc(pointer, bytes, 0)),
                               pointer, bytes);
}

CUresult streamraceEmuDriverMemHostAlloc(void** pointer, size_t bytes, unsigned int flags) {
  // CU_MEMHOSTALLOC_PORTABLE, _DEVICEMAP and _WRITECOMBINED are cudaHostAlloc's flags.
  STREAMRACE_EMU_DRIVER_TRACED(cuMemHostAlloc, driverResult(hostAlloc(pointer, bytes, flags)),
                               pointer, bytes, flags);
}

CUresult streamraceEmuDriverMemAllocAsync(CUdeviceptr* pointer, size_t bytes, CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemAllocAsync,
      allocate(pointer, [&](void** memory) { return mallocAsync(memory, bytes, stream, kLegacy); }),
      pointer, bytes, stream);
}

CUresult streamraceEmuDriverMemFree(CUdeviceptr pointer) {
  STREAMRACE_EMU_DRIVER_TRACED(cuMemFree_v2, driverResult(freeDevice(address(pointer))), pointer);
}

CUresult streamraceEmuDriverMemFreeHost(void* pointer) {
  STREAMRACE_EMU_DRIVER_TRACED(cuMemFreeHost, driverResult(freeHost(pointer)), pointer);
}

CUresult streamraceEmuDriverMemFreeAsync(CUdeviceptr pointer, CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemFreeAsync, driverResult(freeAsync(address(pointer), stream, kLegacy)), pointer, stream);
}

CUresult streamraceEmuDriverStreamCreate(CUstream* stream, unsigned int flags) {
  STREAMRACE_EMU_DRIVER_TRACED(cuStreamCreate, driverResult(createStream(stream, flags, 0)), stream,
                               flags);
}

CUresult streamraceEmuDriverStreamCreateWithPriority(CUstream* stream, unsigned int flags,
                                                     int priority) {
  STREAMRACE_EMU_DRIVER_TRACED(cuStreamCreateWithPriority,
                               driverResult(createStream(stream, flags, priority)), stream, flags,
                               priority);
}

CUresult streamraceEmuDriverStreamDestroy(CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(cuStreamDestroy_v2, driverResult(destroyStream(stream)), stream);
}

CUresult streamraceEmuDriverEventCreate(CUevent* event, unsigned int flags) {
  // CU_EVENT_* flags have cudaEvent*'s values.
  STREAMRACE_EMU_DRIVER_TRACED(cuEventCreate, driverResult(createEvent(event, flags)), event,
                               flags);
}

CUresult streamraceEmuDriverEventDestroy(CUevent event) {
  STREAMRACE_EMU_DRIVER_TRACED(cuEventDestroy_v2, driverResult(destroyEvent(event)), event);
}

} // extern "C"
