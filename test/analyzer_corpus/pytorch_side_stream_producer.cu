// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// PyTorch side stream (torch.cuda.stream(side) without current_stream().wait_stream(side)): the
// side stream's kernel writes activations the default stream's kernel then reads.
// Fixed: the default stream waits for an event recorded on the side stream.
#include <cuda_runtime.h>

__global__ void embedding_lookup(const int* ids, const float* table, float* out, int dim) {
  out[blockIdx.x * dim + threadIdx.x] = table[ids[blockIdx.x] * dim + threadIdx.x];
}

__global__ void layer_norm(const float* in, float* out, int dim) {
  out[blockIdx.x * dim + threadIdx.x] = in[blockIdx.x * dim + threadIdx.x] * 0.5f;
}

void forward(const int* ids, const float* table, float* activations, float* normed, int tokens,
             int dim) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  embedding_lookup<<<tokens, dim, 0, side>>>(ids, table, activations, dim);
#ifdef FIXED
  cudaEvent_t looked_up;
  cudaEventCreateWithFlags(&looked_up, cudaEventDisableTiming);
  cudaEventRecord(looked_up, side);
  cudaStreamWaitEvent(0, looked_up, 0);
  cudaEventDestroy(looked_up);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  layer_norm<<<tokens, dim>>>(activations, normed, dim);
  cudaStreamDestroy(side);
}
