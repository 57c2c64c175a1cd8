// A backend context whose streams its header creates, non-blocking, on first use.
#pragma once
#include "cuda_runtime.h"

struct BackendContext {
  cudaStream_t streams[4] = {};
  cudaStream_t stream(int i) {
    if (streams[i] == nullptr) cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
    return streams[i];
  }
};
