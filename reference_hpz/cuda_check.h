// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Turning CUDA and NCCL status codes into exceptions that say which call failed and where.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace hpz {

inline void throwIfCudaFailed(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                             " failed: " + cudaGetErrorName(status) + " (" +
                             cudaGetErrorString(status) + ")");
  }
}

} // namespace hpz

#define CUDA_CHECK(call) ::hpz::throwIfCudaFailed((call), #call, __FILE__, __LINE__)
