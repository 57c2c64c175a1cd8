// A query orders only when it returned success: polling it to success is a host wait, a single
// query is not.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

void polled(float* buf, float* dst, cudaStream_t a, cudaStream_t b) {
  cudaMemsetAsync(buf, 0, 128, a);
  while (cudaStreamQuery(a) != cudaSuccess) {
  }
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
}

void queried_once(float* buf, float* dst, cudaStream_t a, cudaStream_t b) {
  cudaMemsetAsync(buf, 0, 128, a);
  cudaError_t status = cudaStreamQuery(a);
  (void)status;
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 'b' while cudaMemsetAsync on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
