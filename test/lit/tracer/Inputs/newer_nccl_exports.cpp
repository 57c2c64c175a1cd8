// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A library of a newer NCCL's kind, preloaded beside the tracer: it exports ncclGetVersion, by
// which the tracer knows a library holds NCCL, and a call no NCCL streamrace was written for.
#include <dlfcn.h>

extern "C" {

__attribute__((visibility("default"))) int ncclFrobnicateAsync(void*, void*) {
  return 0;
}

// The real one's answer, so that nothing in the process sees another version.
__attribute__((visibility("default"))) int ncclGetVersion(int* version) {
  using GetVersion = int (*)(int*);
  const auto next = reinterpret_cast<GetVersion>(dlsym(RTLD_NEXT, "ncclGetVersion"));
  return next != nullptr ? next(version) : 1;
}
}
