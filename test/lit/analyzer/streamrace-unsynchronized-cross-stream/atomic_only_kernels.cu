// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernels that only ever atomically update a buffer (atomicAdd and kin, kernel summaries) do not
// race with each other on any stream: the hardware orders atomic read-modify-writes. A plain
// access of the same bytes (a memset, a kernel that reads) still races with them.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void histogram(const int* values, int* bins) {
  atomicAdd(&bins[values[threadIdx.x]], 1);
}

__global__ void count_all(int* bins) { atomicAdd(bins + threadIdx.x % 8, 1); }

__global__ void normalize(int* bins) { bins[threadIdx.x] /= 2; }

void two_atomic_kernels(const int* values, int* bins, cudaStream_t s1, cudaStream_t s2) {
  histogram<<<1, 32, 0, s1>>>(values, bins);
  count_all<<<1, 32, 0, s2>>>(bins);
}

void atomic_then_plain_update(const int* values, int* bins, cudaStream_t s1, cudaStream_t s2) {
  histogram<<<1, 32, 0, s1>>>(values, bins);
  normalize<<<1, 8, 0, s2>>>(bins);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'bins' is read and written by kernel 'normalize' on stream 's2' while kernel 'histogram' on stream 's1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void atomic_then_memset(const int* values, int* bins, cudaStream_t s1, cudaStream_t s2) {
  histogram<<<1, 32, 0, s1>>>(values, bins);
  cudaMemsetAsync(bins, 0, 8 * sizeof(int), s2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'bins' is written by cudaMemsetAsync on stream 's2' while kernel 'histogram' on stream 's1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void atomic_then_memset_after_an_event(const int* values, int* bins, cudaStream_t s1,
                                       cudaStream_t s2, cudaEvent_t counted) {
  histogram<<<1, 32, 0, s1>>>(values, bins);
  cudaEventRecord(counted, s1);
  cudaStreamWaitEvent(s2, counted, 0);
  cudaMemsetAsync(bins, 0, 8 * sizeof(int), s2);
}
