// A host-access race for the multi-file CLI test.
#include "cuda_runtime.h"

float racy(const float* device, cudaStream_t s) {
  float* host;
  cudaMallocHost((void**)&host, 64);
  cudaMemcpyAsync(host, device, 64, cudaMemcpyDeviceToHost, s);
  return host[0];
}
