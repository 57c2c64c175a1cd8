// Against the real CUDA 13 headers: a pinned host buffer read before the copy into it is done,
// wrapped in the usual error-checking macro; and the synchronized twin.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cstdio>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                                           \
  do {                                                                                             \
    cudaError_t status_ = (call);                                                                  \
    if (status_ != cudaSuccess) std::printf("%s\n", cudaGetErrorString(status_));                   \
  } while (0)

float racy(const float* device, size_t n, cudaStream_t s) {
  float* host = nullptr;
  CUDA_CHECK(cudaMallocHost(&host, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpyAsync(host, device, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  return host[n - 1];
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the host reads 'host' while cudaMemcpyAsync on stream 's' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
  // CHECK-FIXES: cudaStreamSynchronize(s);
  // CHECK-FIXES-NEXT: return host[n - 1];
}

float synchronized(const float* device, size_t n, cudaStream_t s) {
  float* host = nullptr;
  CUDA_CHECK(cudaMallocHost(&host, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpyAsync(host, device, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  return host[n - 1];
}
