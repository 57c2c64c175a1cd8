// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// For the benches that call the CUDA runtime: a failed call names itself and ends the run.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if (cudaError_t status = (call); status != cudaSuccess) {                                      \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorName(status));                    \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
