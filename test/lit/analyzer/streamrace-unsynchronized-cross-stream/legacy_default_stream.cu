// The legacy default stream orders against blocking streams, not against non-blocking ones.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void produce(float* out) { out[threadIdx.x] = 1.0f; }

void blocking_stream_is_ordered(float* buf, float* dst) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  produce<<<1, 32, 0, s>>>(buf);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, 0);
  produce<<<1, 32>>>(buf);
  cudaMemsetAsync(buf, 0, 128, s);
}

void non_blocking_stream_races(float* buf, float* dst) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  produce<<<1, 32, 0, s>>>(buf);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on the legacy default stream while kernel 'produce' on stream 's' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-FIXES: cudaStreamWaitEvent(cudaStreamLegacy, streamrace_ready_19, 0);
}

void default_launch_then_non_blocking(float* buf, float* dst) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  produce<<<1, 32>>>(buf);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, s);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 's' while kernel 'produce' on the legacy default stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
