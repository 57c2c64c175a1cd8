// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Allocation: device memory from each device's arena, pinned/registered host memory, managed
// memory, the stream-ordered default pool; memory info and pointer attributes.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <algorithm>

#include "api_tracing.h"
#include "driver_tracing.h"
#include "host_mapping.h"
#include "runtime_operations.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

constexpr unsigned kValidHostAllocFlags =
    cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
constexpr unsigned kValidHostRegisterFlags = cudaHostRegisterPortable | cudaHostRegisterMapped |
                                             cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;

// Rows padded to the allocation granule, as a real device pads them to its alignment.
cudaError_t allocatePitched(void** devPtr, std::size_t* pitch, std::size_t width,
                            std::size_t height) {
  if (pitch == nullptr) {
    return cudaErrorInvalidValue;
  }
  constexpr std::size_t rowAlignment = 512;
  std::size_t padded =
      (std::max<std::size_t>(width, 1) + rowAlignment - 1) / rowAlignment * rowAlignment;
  cudaError_t error = allocateDevice(devPtr, padded * height);
  if (error == cudaSuccess) {
    *pitch = padded;
  }
  return error;
}

cudaError_t allocate3D(cudaPitchedPtr* pitchedDevPtr, cudaExtent extent) {
  if (pitchedDevPtr == nullptr) {
    return cudaErrorInvalidValue;
  }
  void* memory = nullptr;
  std::size_t pitch = 0;
  cudaError_t error = allocatePitched(&memory, &pitch, extent.width,
                                      std::max<std::size_t>(extent.height, 1) * extent.depth);
  if (error == cudaSuccess) {
    *pitchedDevPtr = cudaPitchedPtr{memory, pitch, extent.width, extent.height};
  }
  return error;
}

cudaError_t allocateHost(void** pointer, std::size_t size, MemoryKind kind, unsigned flags) {
  if (pointer == nullptr) {
    return cudaErrorInvalidValue;
  }
  Runtime& runtime = Runtime::instance();
  const std::optional<HostMapping> mapping = mapHostMemory(std::max<std::size_t>(size, 1));
  if (!mapping) {
    *pointer = nullptr;
    return cudaErrorMemoryAllocation;
  }
  runtime.memory.add(Allocation{reinterpret_cast<std::uintptr_t>(mapping->program), size, kind,
                                runtime.currentDevice(), flags,
                                reinterpret_cast<std::uintptr_t>(mapping->device)});
  *pointer = mapping->program;
  return cudaSuccess;
}

void releaseHost(const Allocation& allocation) {
  unmapHostMemory(HostMapping{reinterpret_cast<void*>(allocation.base),
                              reinterpret_cast<void*>(allocation.deviceView)},
                  std::max<std::size_t>(allocation.size, 1));
}

cudaError_t hostRegister(void* pointer, std::size_t size, unsigned flags) {
  if (pointer == nullptr || size == 0 || (flags & ~kValidHostRegisterFlags) != 0) {
    return cudaErrorInvalidValue;
  }
  Runtime& runtime = Runtime::instance();
  if (runtime.memory.overlaps(pointer, size)) {
    return cudaErrorHostMemoryAlreadyRegistered;
  }
  runtime.memory.add(Allocation{reinterpret_cast<std::uintptr_t>(pointer), size,
                                MemoryKind::Registered, runtime.currentDevice(), flags});
  return cudaSuccess;
}

cudaError_t hostUnregister(void* pointer) {
  if (pointer == nullptr) {
    return cudaErrorInvalidValue;
  }
  Runtime& runtime = Runtime::instance();
  std::optional<Allocation> allocation = runtime.memory.startingAt(pointer);
  if (!allocation || allocation->kind != MemoryKind::Registered) {
    return cudaErrorHostMemoryNotRegistered;
  }
  runtime.memory.removeStartingAt(pointer);
  return cudaSuccess;
}

cudaError_t hostDevicePointer(void** pDevice, void* pHost, unsigned flags) {
  if (pDevice == nullptr || flags != 0) {
    return cudaErrorInvalidValue;
  }
  std::optional<Allocation> allocation = Runtime::instance().memory.find(pHost);
  if (!allocation || !allocation->isHostMemory()) {
    return cudaErrorInvalidValue;
  }
  // Unified addressing: the device sees host memory at the host address.
  *pDevice = pHost;
  return cudaSuccess;
}

cudaError_t hostFlags(unsigned* flags, void* pHost) {
  if (flags == nullptr) {
    return cudaErrorInvalidValue;
  }
  std::optional<Allocation> allocation = Runtime::instance().memory.find(pHost);
  if (!allocation || !allocation->isHostMemory()) {
    return cudaErrorInvalidValue;
  }
  *flags = allocation->flags;
  return cudaSuccess;
}

cudaError_t memoryInfo(std::size_t* freeBytes, std::size_t* totalBytes) {
  if (freeBytes == nullptr || totalBytes == nullptr) {
    return cudaErrorInvalidValue;
  }
  Runtime& runtime = Runtime::instance();
  DeviceArena& arena = runtime.device(runtime.currentDevice()).arena;
  *totalBytes = arena.capacity();
  *freeBytes = arena.capacity() - arena.bytesInUse();
  return cudaSuccess;
}

cudaPointerAttributes describe(cudaMemoryType type, int device, void* devicePointer,
                               void* hostPointer) {
  cudaPointerAttributes attributes{};
  attributes.type = type;
  attributes.device = device;
  attributes.devicePointer = devicePointer;
  attributes.hostPointer = hostPointer;
  return attributes;
}

cudaError_t pointerAttributes(cudaPointerAttributes* attributes, const void* pointer) {
  if (attributes == nullptr) {
    return cudaErrorInvalidValue;
  }
  std::optional<Allocation> allocation = Runtime::instance().memory.find(pointer);
  auto* mutablePointer = const_cast<void*>(pointer);
  if (!allocation) {
    *attributes = describe(cudaMemoryTypeUnregistered, -2, nullptr, nullptr);
    return cudaSuccess;
  }
  switch (allocation->kind) {
  case MemoryKind::Device:
  case MemoryKind::PoolDevice:
    *attributes = describe(cudaMemoryTypeDevice, allocation->device, mutablePointer, nullptr);
    break;
  case MemoryKind::Pinned:
  case MemoryKind::Registered:
    *attributes = describe(cudaMemoryTypeHost, allocation->device, mutablePointer, mutablePointer);
    break;
  case MemoryKind::Managed:
    *attributes =
        describe(cudaMemoryTypeManaged, allocation->device, mutablePointer, mutablePointer);
    break;
  }
  return cudaSuccess;
}

// cudaMalloc as the real runtime makes it: through the driver's cuMemAlloc_v2, which CUPTI
// reports as a driver call nested in the runtime call.
cudaError_t allocateThroughDriver(void** devPtr, std::size_t size) {
  cuMemAlloc_v2_params params{reinterpret_cast<CUdeviceptr*>(devPtr), size};
  CUresult result = CUDA_SUCCESS;
  ApiCallbackScope driverCall(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
                              "cuMemAlloc_v2", &params, &result);
  const cudaError_t error = allocateDevice(devPtr, size);
  result = driverResult(error);
  driverCall.finish();
  return error;
}

} // namespace

namespace streamrace::emu {

cudaError_t allocateDevice(void** devPtr, std::size_t size) {
  if (devPtr == nullptr) {
    return cudaErrorInvalidValue;
  }
  Runtime& runtime = Runtime::instance();
  int device = runtime.currentDevice();
  // The first allocation on a device creates its primary context, as on a GPU.
  ensureContext(device);
  if (size == 0) {
    *devPtr = nullptr;
    return cudaSuccess;
  }
  void* memory = runtime.device(device).arena.allocate(size);
  if (memory == nullptr) {
    *devPtr = nullptr;
    return cudaErrorMemoryAllocation;
  }
  runtime.memory.add(
      Allocation{reinterpret_cast<std::uintptr_t>(memory), size, MemoryKind::Device, device, 0});
  *devPtr = memory;
  return cudaSuccess;
}

cudaError_t freeDevice(void* devPtr) {
  Runtime& runtime = Runtime::instance();
  if (devPtr == nullptr) {
    // cudaFree(0), the usual way to make the runtime set a device up.
    ensureContext(runtime.currentDevice());
    return cudaSuccess;
  }
  std::optional<Allocation> allocation = runtime.memory.startingAt(devPtr);
  if (!allocation || (!allocation->isDeviceMemory() && allocation->kind != MemoryKind::Managed)) {
    return cudaErrorInvalidValue;
  }
  // cudaFree waits for the device's work, except for stream-ordered pool memory (docs/semantics.md
  // rule 8).
  if (allocation->kind != MemoryKind::PoolDevice) {
    runtime.synchronizeDevice(allocation->device);
  }
  runtime.memory.removeStartingAt(devPtr);
  if (allocation->kind == MemoryKind::Managed) {
    releaseHost(*allocation);
  } else {
    runtime.device(allocation->device).arena.release(devPtr, allocation->size);
  }
  return cudaSuccess;
}

cudaError_t hostAlloc(void** pointer, std::size_t size, unsigned flags) {
  if ((flags & ~kValidHostAllocFlags) != 0) {
    return cudaErrorInvalidValue;
  }
  return allocateHost(pointer, size, MemoryKind::Pinned, flags);
}

cudaError_t freeHost(void* pointer) {
  if (pointer == nullptr) {
    return cudaSuccess;
  }
  Runtime& runtime = Runtime::instance();
  std::optional<Allocation> allocation = runtime.memory.startingAt(pointer);
  if (!allocation || allocation->kind != MemoryKind::Pinned) {
    return cudaErrorInvalidValue;
  }
  runtime.synchronizeDevice(runtime.currentDevice());
  runtime.memory.removeStartingAt(pointer);
  releaseHost(*allocation);
  return cudaSuccess;
}

cudaError_t mallocManaged(void** pointer, std::size_t size, unsigned flags) {
  if (size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)) {
    return cudaErrorInvalidValue;
  }
  Runtime::instance().synchronizeDevice(Runtime::instance().currentDevice());
  return allocateHost(pointer, size, MemoryKind::Managed, flags);
}

cudaError_t mallocAsync(void** devPtr, std::size_t size, cudaStream_t handle, DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (devPtr == nullptr) {
    return cudaErrorInvalidValue;
  }
  void* memory = runtime.device(stream->device).arena.allocate(size);
  if (memory == nullptr) {
    return cudaErrorMemoryAllocation;
  }
  // The pool only hands out ranges whose cudaFreeAsync already ran, so reuse is ordered after
  // the free, as the real pool guarantees.
  runtime.memory.add(Allocation{reinterpret_cast<std::uintptr_t>(memory), size,
                                MemoryKind::PoolDevice, stream->device, 0});
  runtime.submit(
      *stream,
      Work{OperationKind::Allocation, {}, std::nullopt, GraphMemory{memory, size, stream->device}});
  *devPtr = memory;
  return cudaSuccess;
}

cudaError_t freeAsync(void* devPtr, cudaStream_t handle, DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (devPtr == nullptr) {
    return cudaErrorInvalidValue;
  }
  std::optional<Allocation> allocation = runtime.memory.startingAt(devPtr);
  if (!allocation || !allocation->isDeviceMemory()) {
    return cudaErrorInvalidValue;
  }
  if (runtime.isCapturing(*stream)) {
    // A graph's free node: every launch runs it, so the memory stays the graph's, at the same
    // address for the next launch, as graph memory's addresses do on a GPU.
    runtime.submit(*stream, Work{OperationKind::Free,
                                 {},
                                 std::nullopt,
                                 GraphMemory{devPtr, allocation->size, allocation->device}});
    return cudaSuccess;
  }
  runtime.memory.removeStartingAt(devPtr);
  DeviceArena& arena = runtime.device(allocation->device).arena;
  std::size_t size = allocation->size;
  runtime.submit(
      *stream, Work{OperationKind::Free, [&arena, devPtr, size] { arena.release(devPtr, size); }});
  return cudaSuccess;
}

} // namespace streamrace::emu

extern "C" {

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  STREAMRACE_EMU_TRACED(cudaMalloc, v3020, allocateThroughDriver(devPtr, size), devPtr, size);
}

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  STREAMRACE_EMU_TRACED(cudaMallocPitch, v3020, allocatePitched(devPtr, pitch, width, height),
                        devPtr, pitch, width, height);
}

cudaError_t cudaMalloc3D(cudaPitchedPtr* pitchedDevPtr, cudaExtent extent) {
  STREAMRACE_EMU_TRACED(cudaMalloc3D, v3020, allocate3D(pitchedDevPtr, extent), pitchedDevPtr,
                        extent);
}

cudaError_t cudaFree(void* devPtr) {
  STREAMRACE_EMU_TRACED(cudaFree, v3020, freeDevice(devPtr), devPtr);
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  STREAMRACE_EMU_TRACED(cudaMallocHost, v3020,
                        allocateHost(ptr, size, MemoryKind::Pinned, cudaHostAllocDefault), ptr,
                        size);
}

cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaHostAlloc, v3020, hostAlloc(pHost, size, flags), pHost, size, flags);
}

cudaError_t cudaFreeHost(void* ptr) {
  STREAMRACE_EMU_TRACED(cudaFreeHost, v3020, freeHost(ptr), ptr);
}

cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaMallocManaged, v6000, mallocManaged(devPtr, size, flags), devPtr, size,
                        flags);
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaHostRegister, v4000, hostRegister(ptr, size, flags), ptr, size, flags);
}

cudaError_t cudaHostUnregister(void* ptr) {
  STREAMRACE_EMU_TRACED(cudaHostUnregister, v4000, hostUnregister(ptr), ptr);
}

cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaHostGetDevicePointer, v3020, hostDevicePointer(pDevice, pHost, flags),
                        pDevice, pHost, flags);
}

cudaError_t cudaHostGetFlags(unsigned int* pFlags, void* pHost) {
  STREAMRACE_EMU_TRACED(cudaHostGetFlags, v3020, hostFlags(pFlags, pHost), pFlags, pHost);
}

cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  STREAMRACE_EMU_TRACED(cudaMallocAsync, v11020,
                        mallocAsync(devPtr, size, hStream, DefaultStream::Legacy), devPtr, size,
                        hStream);
}

cudaError_t cudaMallocAsync_ptsz(void** devPtr, size_t size, cudaStream_t hStream) {
  STREAMRACE_EMU_TRACED(cudaMallocAsync_ptsz, v11020,
                        mallocAsync(devPtr, size, hStream, DefaultStream::PerThread), devPtr, size,
                        hStream);
}

// Every pool of the emulator hands out device memory of the stream's device alike.
cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t memPool,
                                    cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaMallocFromPoolAsync, v11020,
                        memPool == nullptr ? cudaErrorInvalidValue
                                           : mallocAsync(ptr, size, stream, DefaultStream::Legacy),
                        ptr, size, memPool, stream);
}

cudaError_t cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, cudaMemPool_t memPool,
                                         cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaMallocFromPoolAsync_ptsz, v11020,
                        memPool == nullptr
                            ? cudaErrorInvalidValue
                            : mallocAsync(ptr, size, stream, DefaultStream::PerThread),
                        ptr, size, memPool, stream);
}

cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  STREAMRACE_EMU_TRACED(cudaFreeAsync, v11020, freeAsync(devPtr, hStream, DefaultStream::Legacy),
                        devPtr, hStream);
}

cudaError_t cudaFreeAsync_ptsz(void* devPtr, cudaStream_t hStream) {
  STREAMRACE_EMU_TRACED(cudaFreeAsync_ptsz, v11020,
                        freeAsync(devPtr, hStream, DefaultStream::PerThread), devPtr, hStream);
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  STREAMRACE_EMU_TRACED(cudaMemGetInfo, v3020, memoryInfo(free, total), free, total);
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  STREAMRACE_EMU_TRACED(cudaPointerGetAttributes, v4000, pointerAttributes(attributes, ptr),
                        attributes, ptr);
}

} // extern "C"
