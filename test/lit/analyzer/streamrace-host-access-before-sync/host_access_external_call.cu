// Passing a pinned buffer to a function the analyzer cannot see is a host access: a const
// pointer parameter reads, a mutable one may write.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

void consume(const float* values, size_t n);
void produce(float* values, size_t n);

void racy(float* device, size_t n, cudaStream_t s) {
  float* host;
  cudaHostAlloc((void**)&host, n * 4, 0);
  cudaMemcpyAsync(device, host, n * 4, cudaMemcpyHostToDevice, s);
  consume(host, n);
  produce(host, n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the host writes 'host' while cudaMemcpyAsync on stream 's' may still be reading it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
}

void ordered(float* device, size_t n, cudaStream_t s, cudaEvent_t e) {
  float* host;
  cudaHostAlloc((void**)&host, n * 4, 0);
  cudaMemcpyAsync(device, host, n * 4, cudaMemcpyHostToDevice, s);
  cudaEventRecord(e, s);
  cudaEventSynchronize(e);
  produce(host, n);
}
