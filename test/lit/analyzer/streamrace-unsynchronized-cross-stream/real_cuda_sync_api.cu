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
  // The copy is ordered after the memset, but never joined back into 's' (the stream-argument
  // contract): the caller's next work on 's' may meet it.
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 'side', which 'blocking_copy_orders' does not join back into stream 's' before returning; the caller's later work on stream 's' may run while it is still reading it [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-4]]:3: warning: 'other' is written by cudaMemcpyAsync on stream 'side', which 'blocking_copy_orders' does not join back into stream 's' before returning; the caller's later work on stream 's' may run while it is still writing it [streamrace-unsynchronized-cross-stream]
}

void device_copy_does_not_wait(float* buf, float* copy, float* other) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaMemcpy(copy, buf, 128, cudaMemcpyDeviceToDevice);
  cudaMemsetAsync(copy, 0, 128, side);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'copy' is written by cudaMemsetAsync on stream 'side' while cudaMemcpy on the legacy default stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  (void)other;
}
