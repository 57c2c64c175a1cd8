// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A program whose only streams are the default ones: the per-thread default stream is the one it
// counts on, and its callers' work on it (or on the legacy stream) is ordered after what a
// function left running there. Silent.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

struct Tensor {
  void* data;
};

static void memset_tensor(Tensor* tensor, int value, size_t size) {
  cudaMemsetAsync(tensor->data, value, size, cudaStreamPerThread);
}

struct BufferInterface {
  void (*memset_tensor)(Tensor*, int, size_t);
};

BufferInterface buffer_interface = {memset_tensor};
