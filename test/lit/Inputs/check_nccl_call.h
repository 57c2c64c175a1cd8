// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// For the lit suites' test programs: an NCCL call that fails prints which one and why, and the
// program's function returns 1, as CHECK does for CUDA calls (check_call.h).
#pragma once

#include <nccl.h>

#include <cstdio>

#define NCCL_CHECK(call)                                                                           \
  do {                                                                                             \
    ncclResult_t status = (call);                                                                  \
    if (status != ncclSuccess) {                                                                   \
      std::printf("FAILED %s: %s\n", #call, ncclGetErrorString(status));                           \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)
