// cudaLaunchKernel with an argument array: the kernel's summary applies to the array's entries.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void produce(float* out) { out[threadIdx.x] = 1.0f; }

void racy(float* buf, float* host, cudaStream_t s1, cudaStream_t s2) {
  void* args[] = {&buf};
  cudaLaunchKernel((const void*)produce, dim3(1), dim3(32), args, 0, s1);
  cudaMemcpyAsync(host, buf, 128, cudaMemcpyDeviceToHost, s2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 's2' while kernel 'produce' on stream 's1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void same_stream(float* buf, float* host, cudaStream_t s1) {
  void* args[] = {&buf};
  cudaLaunchKernel((const void*)produce, dim3(1), dim3(32), args, 0, s1);
  cudaMemcpyAsync(host, buf, 128, cudaMemcpyDeviceToHost, s1);
}
