// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Copies and sets, synchronous and asynchronous, 1D/2D/3D and peer. Which calls make the host wait
// follows the runtime's "API synchronization behavior" (docs/semantics.md rule 7): e.g. a
// synchronous host-to-device copy from pageable memory stages the source and returns before the
// device write.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <cstring>
#include <memory>
#include <vector>

#include "api_tracing.h"
#include "copy_operations.h"
#include "not_emulated.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

enum class Location { Pageable, PinnedHost, Device, Managed };

struct Endpoint {
  Location location = Location::Pageable;
  std::optional<Allocation> allocation;
};

Endpoint locate(const void* pointer) {
  std::optional<Allocation> allocation = Runtime::instance().memory.find(pointer);
  if (!allocation) {
    return {};
  }
  switch (allocation->kind) {
  case MemoryKind::Device:
  case MemoryKind::PoolDevice:
    return {Location::Device, allocation};
  case MemoryKind::Pinned:
  case MemoryKind::Registered:
    return {Location::PinnedHost, allocation};
  case MemoryKind::Managed:
    return {Location::Managed, allocation};
  }
  return {};
}

bool isHost(Location location) {
  return location == Location::Pageable || location == Location::PinnedHost;
}

// A copy or set spanning `bytes` from `pointer` must stay inside the allocation it starts in.
bool fits(const Endpoint& endpoint, const void* pointer, std::size_t bytes) {
  return !endpoint.allocation || endpoint.allocation->contains(pointer, bytes);
}

// The bytes a 2D region of `height` rows of `width` bytes, `pitch` apart, spans.
std::size_t spanOf2D(std::size_t pitch, std::size_t width, std::size_t height) {
  return height == 0 ? 0 : (height - 1) * pitch + width;
}

// The bytes `depth` such regions, `slicePitch` apart, span.
std::size_t spanOf3D(std::size_t slicePitch, std::size_t pitch, std::size_t width,
                     std::size_t height, std::size_t depth) {
  return depth == 0 ? 0 : (depth - 1) * slicePitch + spanOf2D(pitch, width, height);
}

cudaError_t checkDirection(cudaMemcpyKind kind, const Endpoint& dst, const Endpoint& src) {
  switch (kind) {
  case cudaMemcpyHostToHost:
  case cudaMemcpyDefault:
    return cudaSuccess;
  case cudaMemcpyHostToDevice:
    return dst.location == Location::Pageable ? cudaErrorInvalidValue : cudaSuccess;
  case cudaMemcpyDeviceToHost:
    return src.location == Location::Pageable ? cudaErrorInvalidValue : cudaSuccess;
  case cudaMemcpyDeviceToDevice:
    return dst.location == Location::Pageable || src.location == Location::Pageable
               ? cudaErrorInvalidValue
               : cudaSuccess;
  }
  return cudaErrorInvalidMemcpyDirection;
}

enum class HostWait { None, UntilDone };

struct CopyPlan {
  HostWait wait = HostWait::None;
  bool stageSource = false; // copy the pageable source now, as the runtime's staging buffer does
};

CopyPlan planCopy(Location dst, Location src, ApiFlavor flavor) {
  if (flavor == ApiFlavor::Asynchronous) {
    if (src == Location::Device && dst == Location::Pageable) {
      return {HostWait::UntilDone, false};
    }
    return {HostWait::None, src == Location::Pageable && !isHost(dst)};
  }
  if (dst == Location::Managed || src == Location::Managed) {
    return {HostWait::UntilDone, false};
  }
  if (src == Location::Pageable && dst == Location::Device) {
    return {HostWait::None, true};
  }
  if (src == Location::Device && dst == Location::Device) {
    return {HostWait::None, false};
  }
  return {HostWait::UntilDone, false};
}

// `depth` slices of `height` rows of `width` bytes; a 1D or 2D region has one slice.
struct Region2D {
  std::size_t dpitch, spitch, width, height;
  std::size_t depth = 1, dslice = 0, sslice = 0;
};

cudaError_t copy2D(void* dst, const void* src, const Region2D& region, cudaMemcpyKind kind,
                   Stream& stream, ApiFlavor flavor,
                   std::vector<CompletionPtr> extraDependencies = {}) {
  if (region.width == 0 || region.height == 0 || region.depth == 0) {
    return cudaSuccess;
  }
  if (dst == nullptr || src == nullptr ||
      (region.height > 1 && (region.width > region.dpitch || region.width > region.spitch)) ||
      (region.depth > 1 &&
       (spanOf2D(region.dpitch, region.width, region.height) > region.dslice ||
        spanOf2D(region.spitch, region.width, region.height) > region.sslice))) {
    return cudaErrorInvalidValue;
  }
  Endpoint dstEnd = locate(dst);
  Endpoint srcEnd = locate(src);
  if (cudaError_t error = checkDirection(kind, dstEnd, srcEnd); error != cudaSuccess) {
    return error;
  }
  std::size_t dstSpan =
      spanOf3D(region.dslice, region.dpitch, region.width, region.height, region.depth);
  std::size_t srcSpan =
      spanOf3D(region.sslice, region.spitch, region.width, region.height, region.depth);
  if (!fits(dstEnd, dst, dstSpan) || !fits(srcEnd, src, srcSpan)) {
    return cudaErrorInvalidValue;
  }
  CopyPlan plan = planCopy(dstEnd.location, srcEnd.location, flavor);
  const auto* source = static_cast<const std::byte*>(src);
  std::shared_ptr<std::vector<std::byte>> staged;
  // A captured copy (a graph node) reads its source each time the graph runs.
  if (plan.stageSource && !Runtime::instance().isCapturing(stream)) {
    staged = std::make_shared<std::vector<std::byte>>(source, source + srcSpan);
  }
  // The device's view of host memory, as DMA reaches it (host_mapping.h).
  const MemoryRegistry& memory = Runtime::instance().memory;
  auto* destination = static_cast<std::byte*>(memory.deviceAddress(dst));
  const auto* deviceSource = static_cast<const std::byte*>(memory.deviceAddress(src));
  Work work{OperationKind::Memcpy, [destination, deviceSource, region, staged] {
              const std::byte* from = staged ? staged->data() : deviceSource;
              for (std::size_t slice = 0; slice < region.depth; ++slice) {
                for (std::size_t row = 0; row < region.height; ++row) {
                  std::memmove(destination + slice * region.dslice + row * region.dpitch,
                               from + slice * region.sslice + row * region.spitch, region.width);
                }
              }
            }};
  CompletionPtr done =
      Runtime::instance().submit(stream, std::move(work), std::move(extraDependencies));
  if (plan.wait == HostWait::UntilDone && done) {
    done->wait();
  }
  return cudaSuccess;
}

cudaError_t copy2DOn(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                     std::size_t width, std::size_t height, cudaMemcpyKind kind,
                     cudaStream_t handle, DefaultStream zero, ApiFlavor flavor) {
  Stream* stream = Runtime::instance().resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  return copy2D(dst, src, Region2D{dpitch, spitch, width, height}, kind, *stream, flavor);
}

cudaError_t copyPeer(void* dst, int dstDevice, const void* src, int srcDevice, std::size_t count,
                     cudaStream_t handle, ApiFlavor flavor) {
  Runtime& runtime = Runtime::instance();
  if (!runtime.validDevice(dstDevice) || !runtime.validDevice(srcDevice)) {
    return cudaErrorInvalidDevice;
  }
  Stream* stream = runtime.resolveStream(handle, DefaultStream::Legacy);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (count != 0 &&
      (locate(dst).location != Location::Device || locate(src).location != Location::Device)) {
    return cudaErrorInvalidValue;
  }
  std::vector<CompletionPtr> peers;
  if (flavor == ApiFlavor::Synchronous) {
    // The synchronous form is serialized with the pending work of both devices.
    peers.push_back(runtime.device(dstDevice).legacy.worker.lastCompletion());
    peers.push_back(runtime.device(srcDevice).legacy.worker.lastCompletion());
  }
  return copy2D(dst, src, Region2D{count, count, count, 1}, cudaMemcpyDeviceToDevice, *stream,
                flavor, std::move(peers));
}

// `depth` slices of `height` rows of `width` bytes, rows `pitch` and slices `slicePitch` apart.
struct SetRegion {
  std::size_t pitch, width, height;
  std::size_t depth = 1, slicePitch = 0;
};

cudaError_t set3D(void* devPtr, const SetRegion& region, int value, cudaStream_t handle,
                  DefaultStream zero, ApiFlavor flavor) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (region.width == 0 || region.height == 0 || region.depth == 0) {
    return cudaSuccess;
  }
  Endpoint target = locate(devPtr);
  const std::size_t sliceSpan = spanOf2D(region.pitch, region.width, region.height);
  if (devPtr == nullptr || target.location == Location::Pageable ||
      (region.height > 1 && region.width > region.pitch) ||
      (region.depth > 1 && sliceSpan > region.slicePitch) ||
      !fits(target, devPtr,
            spanOf3D(region.slicePitch, region.pitch, region.width, region.height, region.depth))) {
    return cudaErrorInvalidValue;
  }
  auto* destination = static_cast<std::byte*>(runtime.memory.deviceAddress(devPtr));
  Work work{OperationKind::Memset, [destination, region, value] {
              for (std::size_t slice = 0; slice < region.depth; ++slice) {
                for (std::size_t row = 0; row < region.height; ++row) {
                  std::memset(destination + slice * region.slicePitch + row * region.pitch, value,
                              region.width);
                }
              }
            }};
  CompletionPtr done = runtime.submit(*stream, std::move(work));
  // Setting device memory is asynchronous even through cudaMemset; pinned or managed memory
  // is set before cudaMemset returns.
  if (flavor == ApiFlavor::Synchronous && target.location != Location::Device && done) {
    done->wait();
  }
  return cudaSuccess;
}

cudaError_t set2D(void* devPtr, std::size_t pitch, int value, std::size_t width, std::size_t height,
                  cudaStream_t handle, DefaultStream zero, ApiFlavor flavor) {
  return set3D(devPtr, SetRegion{pitch, width, height}, value, handle, zero, flavor);
}

// A pitched pointer's byte at (x bytes, row y, slice z): slices are `ysize` rows of `pitch`.
const std::byte* pitchedAt(const cudaPitchedPtr& pointer, const cudaPos& position) {
  return static_cast<const std::byte*>(pointer.ptr) +
         (position.z * pointer.ysize + position.y) * pointer.pitch + position.x;
}

cudaError_t set3DPitched(cudaPitchedPtr pointer, int value, cudaExtent extent, cudaStream_t handle,
                         DefaultStream zero, ApiFlavor flavor) {
  if (extent.depth > 1 && extent.height > pointer.ysize) {
    return cudaErrorInvalidValue;
  }
  return set3D(pointer.ptr,
               SetRegion{pointer.pitch, extent.width, extent.height, extent.depth,
                         pointer.pitch * pointer.ysize},
               value, handle, zero, flavor);
}

constexpr DefaultStream kPlain = DefaultStream::Legacy;
constexpr DefaultStream kPerThread = DefaultStream::PerThread;
constexpr ApiFlavor kSynchronous = ApiFlavor::Synchronous;
constexpr ApiFlavor kAsynchronous = ApiFlavor::Asynchronous;

} // namespace

namespace streamrace::emu {

cudaError_t copy3D(const cudaMemcpy3DParms* parameters, cudaStream_t handle, DefaultStream zero,
                   ApiFlavor flavor) {
  if (parameters == nullptr) {
    return cudaErrorInvalidValue;
  }
  const cudaMemcpy3DParms& p = *parameters;
  if (p.srcArray != nullptr || p.dstArray != nullptr) {
    return static_cast<cudaError_t>(reportNotEmulated(
        "cudaMemcpy3D with a CUDA array", cudaErrorNotSupported, "cudaErrorNotSupported"));
  }
  Stream* stream = Runtime::instance().resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (p.extent.depth > 1 &&
      (p.extent.height > p.srcPtr.ysize || p.extent.height > p.dstPtr.ysize)) {
    return cudaErrorInvalidValue;
  }
  const Region2D region{p.dstPtr.pitch,
                        p.srcPtr.pitch,
                        p.extent.width,
                        p.extent.height,
                        p.extent.depth,
                        p.dstPtr.pitch * p.dstPtr.ysize,
                        p.srcPtr.pitch * p.srcPtr.ysize};
  return copy2D(const_cast<std::byte*>(pitchedAt(p.dstPtr, p.dstPos)),
                pitchedAt(p.srcPtr, p.srcPos), region, p.kind, *stream, flavor);
}

cudaError_t copyOnStream(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                         cudaStream_t handle, DefaultStream zero, ApiFlavor flavor) {
  Stream* stream = Runtime::instance().resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  return copy2D(dst, src, Region2D{count, count, count, 1}, kind, *stream, flavor);
}

cudaError_t setOnStream(void* devPtr, int value, std::size_t count, cudaStream_t handle,
                        DefaultStream zero, ApiFlavor flavor) {
  return set2D(devPtr, count, value, count, 1, handle, zero, flavor);
}

} // namespace streamrace::emu

extern "C" {

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  STREAMRACE_EMU_TRACED(cudaMemcpy, v3020,
                        copyOnStream(dst, src, count, kind, nullptr, kPlain, kSynchronous), dst,
                        src, count, kind);
}

cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  STREAMRACE_EMU_TRACED(cudaMemcpy_ptds, v7000,
                        copyOnStream(dst, src, count, kind, nullptr, kPerThread, kSynchronous), dst,
                        src, count, kind);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaMemcpyAsync, v3020,
                        copyOnStream(dst, src, count, kind, stream, kPlain, kAsynchronous), dst,
                        src, count, kind, stream);
}

cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                 cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaMemcpyAsync_ptsz, v7000,
                        copyOnStream(dst, src, count, kind, stream, kPerThread, kAsynchronous), dst,
                        src, count, kind, stream);
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpy2D, v3020,
      copy2DOn(dst, dpitch, src, spitch, width, height, kind, nullptr, kPlain, kSynchronous), dst,
      dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpy2D_ptds, v7000,
      copy2DOn(dst, dpitch, src, spitch, width, height, kind, nullptr, kPerThread, kSynchronous),
      dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpy2DAsync, v3020,
      copy2DOn(dst, dpitch, src, spitch, width, height, kind, stream, kPlain, kAsynchronous), dst,
      dpitch, src, spitch, width, height, kind, stream);
}

cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch,
                                   size_t width, size_t height, cudaMemcpyKind kind,
                                   cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpy2DAsync_ptsz, v7000,
      copy2DOn(dst, dpitch, src, spitch, width, height, kind, stream, kPerThread, kAsynchronous),
      dst, dpitch, src, spitch, width, height, kind, stream);
}

cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count) {
  STREAMRACE_EMU_TRACED(cudaMemcpyPeer, v4000,
                        copyPeer(dst, dstDevice, src, srcDevice, count, nullptr, kSynchronous), dst,
                        dstDevice, src, srcDevice, count);
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice,
                                size_t count, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaMemcpyPeerAsync, v4000,
                        copyPeer(dst, dstDevice, src, srcDevice, count, stream, kAsynchronous), dst,
                        dstDevice, src, srcDevice, count, stream);
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  STREAMRACE_EMU_TRACED(cudaMemset, v3020,
                        set2D(devPtr, count, value, count, 1, nullptr, kPlain, kSynchronous),
                        devPtr, value, count);
}

cudaError_t cudaMemset_ptds(void* devPtr, int value, size_t count) {
  STREAMRACE_EMU_TRACED(cudaMemset_ptds, v7000,
                        set2D(devPtr, count, value, count, 1, nullptr, kPerThread, kSynchronous),
                        devPtr, value, count);
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaMemsetAsync, v3020,
                        set2D(devPtr, count, value, count, 1, stream, kPlain, kAsynchronous),
                        devPtr, value, count, stream);
}

cudaError_t cudaMemsetAsync_ptsz(void* devPtr, int value, size_t count, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaMemsetAsync_ptsz, v7000,
                        set2D(devPtr, count, value, count, 1, stream, kPerThread, kAsynchronous),
                        devPtr, value, count, stream);
}

cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  STREAMRACE_EMU_TRACED(cudaMemset2D, v3020,
                        set2D(devPtr, pitch, value, width, height, nullptr, kPlain, kSynchronous),
                        devPtr, pitch, value, width, height);
}

cudaError_t cudaMemset2D_ptds(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  STREAMRACE_EMU_TRACED(
      cudaMemset2D_ptds, v7000,
      set2D(devPtr, pitch, value, width, height, nullptr, kPerThread, kSynchronous), devPtr, pitch,
      value, width, height);
}

cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaMemset2DAsync, v3020,
                        set2D(devPtr, pitch, value, width, height, stream, kPlain, kAsynchronous),
                        devPtr, pitch, value, width, height, stream);
}

cudaError_t cudaMemset2DAsync_ptsz(void* devPtr, size_t pitch, int value, size_t width,
                                   size_t height, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(
      cudaMemset2DAsync_ptsz, v7000,
      set2D(devPtr, pitch, value, width, height, stream, kPerThread, kAsynchronous), devPtr, pitch,
      value, width, height, stream);
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  STREAMRACE_EMU_TRACED(cudaMemcpy3D, v3020, copy3D(p, nullptr, kPlain, kSynchronous), p);
}

cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms* p) {
  STREAMRACE_EMU_TRACED(cudaMemcpy3D_ptds, v7000, copy3D(p, nullptr, kPerThread, kSynchronous), p);
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaMemcpy3DAsync, v3020, copy3D(p, stream, kPlain, kAsynchronous), p,
                        stream);
}

cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaMemcpy3DAsync_ptsz, v7000, copy3D(p, stream, kPerThread, kAsynchronous),
                        p, stream);
}

cudaError_t cudaMemset3D(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent) {
  STREAMRACE_EMU_TRACED(cudaMemset3D, v3020,
                        set3DPitched(pitchedDevPtr, value, extent, nullptr, kPlain, kSynchronous),
                        pitchedDevPtr, value, extent);
}

cudaError_t cudaMemset3D_ptds(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent) {
  STREAMRACE_EMU_TRACED(
      cudaMemset3D_ptds, v7000,
      set3DPitched(pitchedDevPtr, value, extent, nullptr, kPerThread, kSynchronous), pitchedDevPtr,
      value, extent);
}

cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent,
                              cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaMemset3DAsync, v3020,
                        set3DPitched(pitchedDevPtr, value, extent, stream, kPlain, kAsynchronous),
                        pitchedDevPtr, value, extent, stream);
}

cudaError_t cudaMemset3DAsync_ptsz(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent,
                                   cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(
      cudaMemset3DAsync_ptsz, v7000,
      set3DPitched(pitchedDevPtr, value, extent, stream, kPerThread, kAsynchronous), pitchedDevPtr,
      value, extent, stream);
}

} // extern "C"
