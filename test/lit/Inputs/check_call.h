// For the lit suites' test programs: a CUDA call that fails prints which one and why, and the
// program's main returns 1, so the FileCheck lines of the test name the failure.
#pragma once

#include <cstdio>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t status = (call);                                                                   \
    if (status != cudaSuccess) {                                                                   \
      std::printf("FAILED %s: %s\n", #call, cudaGetErrorName(status));                             \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)
