// The per-thread default stream behaves as a blocking stream: the legacy stream orders it.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

void ordered_through_legacy(float* buf, float* dst) {
  cudaMemsetAsync(buf, 0, 128, cudaStreamPerThread);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, cudaStreamLegacy);
}

void races_with_non_blocking(float* buf, float* dst) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMemsetAsync(buf, 0, 128, cudaStreamPerThread);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, s);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 's' while cudaMemsetAsync on the per-thread default stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
