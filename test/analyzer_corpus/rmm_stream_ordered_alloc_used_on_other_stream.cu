// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RAPIDS stream-ordered allocation: memory from cudaMallocAsync on one stream is valid on another
// only after that stream is ordered after the allocation; here the other stream writes it at once.
// Fixed: the worker stream waits for an event recorded after the allocation.
#include <cuda_runtime.h>

__global__ void gather_rows(const float* table, const int* rows, float* out, int width) {
  out[blockIdx.x * width + threadIdx.x] = table[rows[blockIdx.x] * width + threadIdx.x];
}

float* gather_on_worker(const float* table, const int* rows, int num_rows, int width,
                        cudaStream_t alloc_stream, cudaStream_t worker) {
  float* out = nullptr;
  cudaMallocAsync(&out, num_rows * width * sizeof(float), alloc_stream);
#ifdef FIXED
  cudaEvent_t allocated;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  cudaEventRecord(allocated, alloc_stream);
  cudaStreamWaitEvent(worker, allocated, 0);
  cudaEventDestroy(allocated);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  gather_rows<<<num_rows, width, 0, worker>>>(table, rows, out, width);
  return out;
}
