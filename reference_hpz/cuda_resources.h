// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Owners of CUDA and NCCL handles: device and pinned buffers, streams, events, communicators.
#pragma once

#include "cuda_check.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <utility>

namespace hpz {

inline void throwIfNcclFailed(ncclResult_t status, const char* call, const char* file, int line) {
  if (status != ncclSuccess) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                             " failed: " + ncclGetErrorString(status) + " (" +
                             ncclGetLastError(nullptr) + ")");
  }
}

#define NCCL_CHECK(call) ::hpz::throwIfNcclFailed((call), #call, __FILE__, __LINE__)

template <typename Handle, typename Release> class UniqueHandle {
public:
  UniqueHandle() = default;
  UniqueHandle(Handle handle, Release release) : handle_(handle), release_(release) {}
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  UniqueHandle(UniqueHandle&& other) noexcept
      : handle_(std::exchange(other.handle_, Handle{})), release_(other.release_) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
      release_ = other.release_;
    }
    return *this;
  }
  ~UniqueHandle() { reset(); }

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != Handle{}; }
  void reset() {
    if (handle_ != Handle{}) {
      release_(std::exchange(handle_, Handle{}));
    }
  }

private:
  Handle handle_{};
  Release release_{};
};

using ReleaseFunction = void (*)(void*);

// Device memory holding `count` values of T.
template <typename T> class DeviceArray {
public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t count) : count_(count) {
    void* memory = nullptr;
    CUDA_CHECK(cudaMalloc(&memory, count * sizeof(T)));
    memory_ =
        UniqueHandle<void*, ReleaseFunction>(memory, [](void* pointer) { cudaFree(pointer); });
  }
  T* get() const { return static_cast<T*>(memory_.get()); }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  explicit operator bool() const { return static_cast<bool>(memory_); }

private:
  UniqueHandle<void*, ReleaseFunction> memory_;
  std::size_t count_ = 0;
};

using DeviceFloats = DeviceArray<float>;

// Page-locked host memory, so copies into it stay asynchronous.
class PinnedFloats {
public:
  explicit PinnedFloats(std::size_t count) : count_(count) {
    void* memory = nullptr;
    CUDA_CHECK(cudaMallocHost(&memory, count * sizeof(float)));
    memory_ =
        UniqueHandle<void*, ReleaseFunction>(memory, [](void* pointer) { cudaFreeHost(pointer); });
  }
  float* get() const { return static_cast<float*>(memory_.get()); }
  std::size_t count() const { return count_; }

private:
  UniqueHandle<void*, ReleaseFunction> memory_;
  std::size_t count_ = 0;
};

using StreamReleaser = void (*)(cudaStream_t);
using EventReleaser = void (*)(cudaEvent_t);
using CommunicatorReleaser = void (*)(ncclComm_t);

// A stream that does not synchronize with the legacy default stream, as PyTorch's stream pool
// creates them: only events order it against the compute stream.
inline UniqueHandle<cudaStream_t, StreamReleaser> createNonBlockingStream() {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return {stream, [](cudaStream_t handle) { cudaStreamDestroy(handle); }};
}

inline UniqueHandle<cudaEvent_t, EventReleaser> createEvent() {
  cudaEvent_t event = nullptr;
  CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  return {event, [](cudaEvent_t handle) { cudaEventDestroy(handle); }};
}

inline UniqueHandle<ncclComm_t, CommunicatorReleaser> adoptCommunicator(ncclComm_t communicator) {
  return {communicator, [](ncclComm_t handle) { ncclCommDestroy(handle); }};
}

using Stream = UniqueHandle<cudaStream_t, StreamReleaser>;
using Event = UniqueHandle<cudaEvent_t, EventReleaser>;
using Communicator = UniqueHandle<ncclComm_t, CommunicatorReleaser>;

} // namespace hpz
