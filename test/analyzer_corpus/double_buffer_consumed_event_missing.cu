// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Double-buffered prefetch: the copy stream loads batch i+2 into the buffer batch i used, but only
// a "loaded" event exists, so the copy overwrites the buffer while compute of batch i may still
// read it. Fixed: a per-buffer "consumed" event recorded by compute is waited on before each
// reload.
#include <cuda_runtime.h>

__global__ void train_step(const float* batch, float* weights) {
  weights[threadIdx.x] += batch[threadIdx.x];
}

void train_epoch(const float* const* pinned_batches, int batches, size_t bytes, float* weights,
                 cudaStream_t copy_stream, cudaStream_t compute) {
  float* buffers[2];
  cudaEvent_t loaded[2], consumed[2];
  for (int i = 0; i < 2; ++i) {
    cudaMalloc(&buffers[i], bytes);
    cudaEventCreateWithFlags(&loaded[i], cudaEventDisableTiming);
    cudaEventCreateWithFlags(&consumed[i], cudaEventDisableTiming);
  }
  for (int b = 0; b < batches; ++b) {
    int slot = b % 2;
#ifdef FIXED
    if (b >= 2) cudaStreamWaitEvent(copy_stream, consumed[slot], 0);
#endif
    // expect: streamrace-unsynchronized-cross-stream
    cudaMemcpyAsync(buffers[slot], pinned_batches[b], bytes, cudaMemcpyHostToDevice, copy_stream);
    cudaEventRecord(loaded[slot], copy_stream);
    cudaStreamWaitEvent(compute, loaded[slot], 0);
    train_step<<<1, 256, 0, compute>>>(buffers[slot], weights);
    cudaEventRecord(consumed[slot], compute);
  }
  cudaStreamSynchronize(compute);
}
