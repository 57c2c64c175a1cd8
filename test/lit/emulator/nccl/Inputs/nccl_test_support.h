// Shared by the NCCL test programs: fail loudly on any error, read the launcher's variables,
// and hand rank 0's unique id to the other ranks the way torchrun programs do (through a
// shared channel: here a file in $STREAMRACE_EMU_RENDEZVOUS_DIR).
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#define CUDA_OK(call)                                                                              \
  do {                                                                                             \
    const cudaError_t error_ = (call);                                                             \
    if (error_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                    \
                   cudaGetErrorString(error_));                                                    \
      std::exit(3);                                                                                \
    }                                                                                              \
  } while (0)

#define NCCL_OK(call)                                                                              \
  do {                                                                                             \
    const ncclResult_t result_ = (call);                                                           \
    if (result_ != ncclSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,               \
                   ncclGetErrorString(result_), ncclGetLastError(nullptr));                        \
      std::exit(4);                                                                                \
    }                                                                                              \
  } while (0)

inline int environmentInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoi(value) : fallback;
}

// The creator makes the id and publishes it under `name`; the others wait for the file to appear.
inline ncclUniqueId exchangeUniqueId(bool creator, const std::string& name) {
  const char* dir = std::getenv("STREAMRACE_EMU_RENDEZVOUS_DIR");
  if (dir == nullptr) {
    std::fprintf(stderr, "run under streamrace-emu-launch\n");
    std::exit(5);
  }
  const std::string path = std::string(dir) + "/" + name;
  ncclUniqueId id{};
  if (creator) {
    NCCL_OK(ncclGetUniqueId(&id));
    { std::ofstream(path + ".tmp", std::ios::binary).write(id.internal, sizeof(id.internal)); }
    std::rename((path + ".tmp").c_str(), path.c_str());
    return id;
  }
  for (;;) {
    std::ifstream file(path, std::ios::binary);
    if (file && file.read(id.internal, sizeof(id.internal))) {
      return id;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// The world communicator's id, from rank 0.
inline ncclUniqueId exchangeUniqueId(int rank) {
  return exchangeUniqueId(rank == 0, "nccl-id");
}

template <typename T> T* deviceCopyOf(const std::vector<T>& host) {
  T* device = nullptr;
  CUDA_OK(cudaMalloc(&device, host.size() * sizeof(T)));
  CUDA_OK(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  // cudaMemcpy from pageable memory may return before the device write lands, and non-blocking
  // streams do not wait for the legacy stream: without this, collectives race with the fill.
  CUDA_OK(cudaDeviceSynchronize());
  return device;
}

template <typename T> std::vector<T> hostCopyOf(const T* device, std::size_t count) {
  std::vector<T> host(count);
  CUDA_OK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

template <typename T> std::string joined(const std::vector<T>& values) {
  std::string text;
  for (const T& value : values) {
    text += (text.empty() ? "" : " ") + std::to_string(value);
  }
  return text;
}
