// A `for` loop between two constants whose body changes nothing the analysis follows once ended
// the analysis of its function: a host read after it went unchecked. It is checked now; its
// synchronized twin stays silent.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

int printf(const char*, ...);

float read_after_a_printf_loop(const float* device, size_t n, cudaStream_t s) {
  float* host;
  cudaMallocHost((void**)&host, n * 4);
  cudaMemcpyAsync(host, device, n * 4, cudaMemcpyDeviceToHost, s);
  for (int i = 0; i < 3; i++)
    printf("step %d\n", i);
  return host[0];
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the host reads 'host' while cudaMemcpyAsync on stream 's' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: cudaMemcpyAsync writes 'host' on stream 's' here
}

float read_after_a_printf_loop_synchronized(const float* device, size_t n, cudaStream_t s) {
  float* host;
  cudaMallocHost((void**)&host, n * 4);
  cudaMemcpyAsync(host, device, n * 4, cudaMemcpyDeviceToHost, s);
  for (int i = 0; i < 3; i++)
    printf("step %d\n", i);
  cudaStreamSynchronize(s);
  return host[0];
}

float read_after_creating_streams(const float* device, size_t n) {
  cudaStream_t streams[2];
  for (int i = 0; i < 2; i++)
    cudaStreamCreate(&streams[i]);
  float* host;
  cudaMallocHost((void**)&host, n * 4);
  cudaMemcpyAsync(host, device, n * 4, cudaMemcpyDeviceToHost, streams[0]);
  return host[0];
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the host reads 'host' while cudaMemcpyAsync on stream 'streams[0]' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync writes 'host' on stream 'streams[0]' here
}

float read_after_creating_streams_synchronized(const float* device, size_t n) {
  cudaStream_t streams[2];
  for (int i = 0; i < 2; i++)
    cudaStreamCreate(&streams[i]);
  float* host;
  cudaMallocHost((void**)&host, n * 4);
  cudaMemcpyAsync(host, device, n * 4, cudaMemcpyDeviceToHost, streams[0]);
  for (int i = 0; i < 2; i++)
    cudaStreamSynchronize(streams[i]);
  return host[0];
}
