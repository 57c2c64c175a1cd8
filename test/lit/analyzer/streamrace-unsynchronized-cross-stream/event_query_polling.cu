// Polling an event to completion in a do-while loop is a host wait for what it captured.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

void polled(float* buf, float* dst, cudaStream_t a, cudaStream_t b, cudaEvent_t done) {
  cudaMemsetAsync(buf, 0, 128, a);
  cudaEventRecord(done, a);
  do {
  } while (cudaEventQuery(done) == cudaErrorNotReady);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
}

void polled_the_wrong_event(float* buf, float* dst, cudaStream_t a, cudaStream_t b,
                            cudaEvent_t done) {
  cudaEventRecord(done, a);
  cudaMemsetAsync(buf, 0, 128, a);
  do {
  } while (cudaEventQuery(done) == cudaErrorNotReady);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 'b' while cudaMemsetAsync on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
