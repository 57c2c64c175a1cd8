// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What every emulated kernel reports to the runtime (cudaFuncGetAttributes, occupancy) and the
// driver (cuFuncGetAttribute): a modest register and shared-memory footprint that leaves the
// whole block size available, compiled for the emulated compute capability.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>

namespace streamrace::emu {

inline constexpr int kErnelMaxThreadsPerBlock = 1024;
inline constexpr int kErnelMaxDynamicSharedBytes = 48 << 10;

inline cudaFuncAttributes emulatedKernelAttributes() {
  constexpr int registersPerThread = 32;
  constexpr int compiledFor = 90;
  cudaFuncAttributes attributes{};
  attributes.maxThreadsPerBlock = kErnelMaxThreadsPerBlock;
  attributes.numRegs = registersPerThread;
  attributes.ptxVersion = compiledFor;
  attributes.binaryVersion = compiledFor;
  attributes.maxDynamicSharedSizeBytes = kErnelMaxDynamicSharedBytes;
  return attributes;
}

inline int activeBlocksPerMultiprocessor(int blockSize) {
  constexpr int maxThreadsPerMultiprocessor = 2048;
  constexpr int maxBlocksPerMultiprocessor = 32;
  return std::clamp(maxThreadsPerMultiprocessor / blockSize, 0, maxBlocksPerMultiprocessor);
}

} // namespace streamrace::emu
