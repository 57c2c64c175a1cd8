// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A copy on the legacy default stream, its fix-it (an event recorded after it) twenty lines
// above the kernel that races with it.
#include "cuda_runtime.h"

__global__ void scale(float* out, const float* in) { out[threadIdx.x] = 2.0f * in[threadIdx.x]; }

void upload_then_scale(float* out, float* in, const float* host) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaMemcpy(in, host, 256, cudaMemcpyHostToDevice);
  int blocks = 1;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  blocks += 0;
  for (int i = 0; i < 64; i += 32) {
    int j = i;
    scale<<<blocks, 32, 0, side>>>(out + j, in + j);
  }
}
