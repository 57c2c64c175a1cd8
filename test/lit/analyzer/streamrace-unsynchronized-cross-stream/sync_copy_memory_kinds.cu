// Synchronous cudaMemcpy and cudaMemset per memory kind (docs/semantics.md rule 7): host-to-device
// from pageable memory returns once the data is staged, so the device write on the legacy stream
// is still pending for a non-blocking stream; from pinned memory, and a cudaMemset of pinned or
// managed memory, the host waits.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cuda_runtime.h>

__global__ void consume(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }

void racy_upload_from_pageable(const float* pageable, float* d_in, float* d_out, size_t bytes) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaMemcpy(d_in, pageable, bytes, cudaMemcpyHostToDevice);
  consume<<<1, 32, 0, side>>>(d_in, d_out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'd_in' is read by kernel 'consume' on stream 'side' while cudaMemcpy on the legacy default stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpy writes 'd_in' on the legacy default stream here
}

void ordered_upload_from_pinned(float* d_in, float* d_out, size_t bytes) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  float* pinned;
  cudaMallocHost(&pinned, bytes);
  cudaMemcpy(d_in, pinned, bytes, cudaMemcpyHostToDevice);
  consume<<<1, 32, 0, side>>>(d_in, d_out);
}

void ordered_set_of_managed(float* d_out, size_t bytes) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  float* managed;
  cudaMallocManaged(&managed, bytes);
  cudaMemset(managed, 0, bytes);
  consume<<<1, 32, 0, side>>>(managed, d_out);
}
