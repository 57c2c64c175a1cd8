// A switch: the race exists on the one case that skips the synchronization.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

void by_mode(float* buf, float* dst, int mode, cudaStream_t a, cudaStream_t b, cudaEvent_t e) {
  cudaMemsetAsync(buf, 0, 128, a);
  switch (mode) {
  case 0:
    cudaStreamSynchronize(a);
    break;
  case 1:
    cudaEventRecord(e, a);
    cudaStreamWaitEvent(b, e);
    break;
  default:
    break;
  }
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 'b' while cudaMemsetAsync on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void every_case(float* buf, float* dst, int mode, cudaStream_t a, cudaStream_t b, cudaEvent_t e) {
  cudaMemsetAsync(buf, 0, 128, a);
  switch (mode) {
  case 0:
    cudaStreamSynchronize(a);
    break;
  default:
    cudaEventRecord(e, a);
    cudaStreamWaitEvent(b, e);
    break;
  }
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
}
