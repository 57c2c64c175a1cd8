// Write-write: a memset on one stream and a kernel writing the same buffer on another.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void fill(float* out, float value) { out[threadIdx.x] = value; }

void racy(float* buf, size_t n, cudaStream_t a, cudaStream_t b) {
  cudaMemsetAsync(buf, 0, n, a);
  fill<<<1, 32, 0, b>>>(buf, 1.0f);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is written by kernel 'fill' on stream 'b' while cudaMemsetAsync on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemsetAsync writes 'buf' on stream 'a' here
}

void ordered_by_host_sync(float* buf, size_t n, cudaStream_t a, cudaStream_t b) {
  cudaMemsetAsync(buf, 0, n, a);
  cudaStreamSynchronize(a);
  fill<<<1, 32, 0, b>>>(buf, 1.0f);
}
