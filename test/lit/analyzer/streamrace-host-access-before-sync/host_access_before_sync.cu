// The host reads a pinned buffer an async device-to-host copy may still be writing, or
// overwrites the source of an async host-to-device copy.
// RUN: %check_streamrace %s %t -- %mock_cuda
// RUN: %check_streamrace --tool=tidy %s %t.tidy -- %mock_cuda
#include "cuda_runtime.h"
#include "stdlib.h"

float read_too_early(const float* device, size_t n, cudaStream_t s) {
  float* host;
  cudaMallocHost((void**)&host, n * 4);
  cudaMemcpyAsync(host, device, n * 4, cudaMemcpyDeviceToHost, s);
  float first = host[0];
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: the host reads 'host' while cudaMemcpyAsync on stream 's' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync writes 'host' on stream 's' here
  // CHECK-FIXES: cudaStreamSynchronize(s);
  // CHECK-FIXES-NEXT: float first = host[0];
  return first;
}

void overwrite_source(float* device, size_t n, cudaStream_t s) {
  float* host;
  cudaMallocHost((void**)&host, n * 4);
  host[0] = 1.0f;
  cudaMemcpyAsync(device, host, n * 4, cudaMemcpyHostToDevice, s);
  host[0] = 2.0f;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the host writes 'host' while cudaMemcpyAsync on stream 's' may still be reading it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
}

float read_after_sync(const float* device, size_t n, cudaStream_t s) {
  float* host;
  cudaMallocHost((void**)&host, n * 4);
  cudaMemcpyAsync(host, device, n * 4, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  return host[0];
}

float pageable_destination_waits(const float* device, size_t n, cudaStream_t s) {
  float* host = (float*)malloc(n * 4);
  cudaMemcpyAsync(host, device, n * 4, cudaMemcpyDeviceToHost, s);
  return host[0];
}

void printed(const float* device, size_t n, cudaStream_t s) {
  float* host;
  cudaMallocHost((void**)&host, n * 4);
  cudaMemcpyAsync(host, device, n * 4, cudaMemcpyDeviceToHost, s);
  printf("%f\n", *host);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: the host reads 'host' while cudaMemcpyAsync on stream 's' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
}
