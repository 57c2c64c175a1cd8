// cudaMallocAsync allocates in its stream's order: another stream may use the memory only once
// it is ordered after the allocation (RAPIDS rmm's rule). Later work on the allocating stream
// carries that order on.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void fill(float* out) { out[threadIdx.x] = 1.0f; }

void used_on_another_stream_at_once(size_t n, cudaStream_t alloc, cudaStream_t worker) {
  float* out = nullptr;
  cudaMallocAsync((void**)&out, n, alloc);
  fill<<<1, 32, 0, worker>>>(out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'out' is written by kernel 'fill' on stream 'worker' while cudaMallocAsync on stream 'alloc' may not have allocated it yet; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMallocAsync allocates 'out' on stream 'alloc' here
}

void used_after_an_event(size_t n, cudaStream_t alloc, cudaStream_t worker) {
  float* out = nullptr;
  cudaMallocAsync((void**)&out, n, alloc);
  cudaEvent_t allocated;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  cudaEventRecord(allocated, alloc);
  cudaStreamWaitEvent(worker, allocated, 0);
  fill<<<1, 32, 0, worker>>>(out);
}

void used_on_the_allocating_stream(size_t n, cudaStream_t alloc) {
  float* out = nullptr;
  cudaMallocAsync((void**)&out, n, alloc);
  fill<<<1, 32, 0, alloc>>>(out);
  cudaFreeAsync(out, alloc);
}

void filled_then_used_elsewhere(size_t n, cudaStream_t alloc, cudaStream_t worker) {
  float* out = nullptr;
  cudaMallocAsync((void**)&out, n, alloc);
  fill<<<1, 32, 0, alloc>>>(out);
  fill<<<1, 32, 0, worker>>>(out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'out' is written by kernel 'fill' on stream 'worker' while kernel 'fill' on stream 'alloc' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
