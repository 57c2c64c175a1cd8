// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A local variable's buffer is named by nothing once the variable's scope ends: each call of a
// helper that allocates scratch space in a local gets new storage, so the work one call left on
// its scratch buffer is not the next call's. Within one call, the scratch buffer's accesses are
// still checked, and so is a buffer a pointer that outlives the scope still names.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void scale(float* data) { data[threadIdx.x] *= 2.0f; }

static void scale_in_scratch(const float* input, int parts, cudaStream_t s) {
  float* scratch[4];
  for (int i = 0; i < parts; ++i) {
    cudaMalloc((void**)&scratch[i], 64);
    cudaMemcpyAsync(scratch[i], input, 64, cudaMemcpyDeviceToDevice, s);
    scale<<<1, 16, 0, s>>>(scratch[i]);
  }
}

void each_call_its_own_scratch(const float* input, cudaStream_t s1, cudaStream_t s2) {
  scale_in_scratch(input, 4, s1);
  scale_in_scratch(input, 4, s2);
}

static void scratch_on_two_streams(const float* input, cudaStream_t s1, cudaStream_t s2) {
  float* scratch;
  cudaMalloc((void**)&scratch, 64);
  cudaMemcpyAsync(scratch, input, 64, cudaMemcpyDeviceToDevice, s1);
  scale<<<1, 16, 0, s2>>>(scratch);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'scratch' is read and written by kernel 'scale' on stream 's2' while cudaMemcpyAsync on stream 's1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void scratch_racing_within_a_call(const float* input, cudaStream_t s1, cudaStream_t s2) {
  scratch_on_two_streams(input, s1, s2);
}

void buffer_outlives_the_block(const float* input, cudaStream_t s1, cudaStream_t s2) {
  float* kept;
  {
    float* block;
    cudaMalloc((void**)&block, 64);
    cudaMemcpyAsync(block, input, 64, cudaMemcpyDeviceToDevice, s1);
    kept = block;
  }
  scale<<<1, 16, 0, s2>>>(kept);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'block' is read and written by kernel 'scale' on stream 's2' while cudaMemcpyAsync on stream 's1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
