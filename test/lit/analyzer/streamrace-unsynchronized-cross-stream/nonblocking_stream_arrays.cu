// Streams created non-blocking in a loop over an array are non-blocking whichever element is used
// later, a constant one included: the legacy stream's copy does not wait for them. Created
// blocking, the same copy waits for the kernel (CUDA's implicit synchronization).
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cuda_runtime.h>

__global__ void scale(const float* x, float* y) { y[threadIdx.x] = 2.0f * x[threadIdx.x]; }

void nonblocking_array(const float* x, float* y, float* host) {
  cudaStream_t streams[2];
  for (int i = 0; i < 2; ++i)
    cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
  scale<<<1, 32, 0, streams[0]>>>(x, y);
  cudaMemcpy(host, y, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'y' is read by cudaMemcpy on the legacy default stream while kernel 'scale' on stream 'streams[0]' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void blocking_array(const float* x, float* y, float* host) {
  cudaStream_t streams[2];
  for (int i = 0; i < 2; ++i)
    cudaStreamCreate(&streams[i]);
  scale<<<1, 32, 0, streams[0]>>>(x, y);
  cudaMemcpy(host, y, 32 * sizeof(float), cudaMemcpyDeviceToHost);
}
