// Synchronous API calls: cudaMemcpy device-to-host makes the host wait for the legacy stream,
// which waits for every blocking stream; a device-to-device cudaMemcpy does not wait.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cuda_runtime.h>

void blocking_copy_orders(float* buf, float* host, float* other, cudaStream_t s) {
  cudaMemsetAsync(buf, 0, 128, s);
  cudaMemcpy(host, buf, 128, cudaMemcpyDeviceToHost);
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaMemcpyAsync(other, buf, 128, cudaMemcpyDeviceToDevice, side);
}

void device_copy_does_not_wait(float* buf, float* copy, float* other) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaMemcpy(copy, buf, 128, cudaMemcpyDeviceToDevice);
  cudaMemsetAsync(copy, 0, 128, side);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'copy' is written by cudaMemsetAsync on stream 'side' while cudaMemcpy on the legacy default stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  (void)other;
}
