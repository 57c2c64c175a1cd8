// Freeing a buffer that async work on another stream may still use.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"
#include "stdlib.h"

__global__ void produce(float* out) { out[threadIdx.x] = 1.0f; }

void stream_ordered_free(float* host, size_t n, cudaStream_t work, cudaStream_t cleanup) {
  float* scratch;
  cudaMallocAsync((void**)&scratch, n * 4, work);
  produce<<<1, 32, 0, work>>>(scratch);
  cudaMemcpyAsync(host, scratch, n * 4, cudaMemcpyDeviceToHost, work);
  cudaFreeAsync(scratch, cleanup);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'scratch' is freed by cudaFreeAsync on stream 'cleanup' while cudaMemcpyAsync on stream 'work' may still be reading it [streamrace-free-while-pending]
  // CHECK-FIXES: cudaStreamWaitEvent(cleanup, streamrace_ready_12, 0);
  // CHECK-FIXES-NEXT: cudaEventDestroy(streamrace_ready_12);
  // CHECK-FIXES-NEXT: cudaFreeAsync(scratch, cleanup);
}

void freed_on_the_same_stream(size_t n, cudaStream_t work) {
  float* scratch;
  cudaMallocAsync((void**)&scratch, n * 4, work);
  produce<<<1, 32, 0, work>>>(scratch);
  cudaFreeAsync(scratch, work);
}

void host_free_of_registered(float* device, size_t n, cudaStream_t s) {
  float* host = (float*)malloc(n * 4);
  cudaHostRegister(host, n * 4, cudaHostRegisterDefault);
  cudaMemcpyAsync(device, host, n * 4, cudaMemcpyHostToDevice, s);
  free(host);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'host' is freed by the host (free) while cudaMemcpyAsync on stream 's' may still be reading it [streamrace-free-while-pending]
  // CHECK-FIXES: cudaStreamSynchronize(s);
  // CHECK-FIXES-NEXT: free(host);
}

void host_free_after_sync(float* device, size_t n, cudaStream_t s) {
  float* host = new float[n];
  cudaHostRegister(host, n * 4, cudaHostRegisterDefault);
  cudaMemcpyAsync(device, host, n * 4, cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(s);
  delete[] host;
}

void host_delete_while_pending(float* device, size_t n, cudaStream_t s) {
  float* host = new float[n];
  cudaHostRegister(host, n * 4, cudaHostRegisterDefault);
  cudaMemcpyAsync(host, device, n * 4, cudaMemcpyDeviceToHost, s);
  delete[] host;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'host' is freed by the host (delete[]) while cudaMemcpyAsync on stream 's' may still be writing it [streamrace-free-while-pending]
}

void free_host_synchronizes(float* device, size_t n, cudaStream_t s) {
  float* host;
  cudaMallocHost((void**)&host, n * 4);
  cudaMemcpyAsync(device, host, n * 4, cudaMemcpyHostToDevice, s);
  cudaFreeHost(host);
}
