// Compiled for the per-thread default stream (nvcc --default-stream per-thread defines
// CUDA_API_PER_THREAD_DEFAULT_STREAM), the headers call the _ptsz variants and stream 0 is the
// per-thread stream: a blocking stream, not the legacy one.
// RUN: %check_streamrace %s %t -- %real_cuda -DCUDA_API_PER_THREAD_DEFAULT_STREAM
#include <cuda_runtime.h>

void non_blocking_races(float* buf, float* dst) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaMemsetAsync(buf, 0, 128, 0);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, side);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 'side' while cudaMemsetAsync on the per-thread default stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void synchronized(float* buf, float* dst) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaMemsetAsync(buf, 0, 128, 0);
  cudaStreamSynchronize(0);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, side);
}
