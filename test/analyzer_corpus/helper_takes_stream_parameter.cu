// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Helpers taking the stream as a parameter (cuDNN/cuBLAS-style wrappers): the driver fills the mask
// on the data stream and applies it with the same helper family on the compute stream, unordered.
// Fixed: the driver makes the compute stream wait for the data stream between the two helpers.
#include <cuda_runtime.h>

__global__ void fill_mask(unsigned char* mask, int seq_len) {
  mask[threadIdx.x] = threadIdx.x < seq_len;
}

__global__ void masked_softmax(const unsigned char* mask, float* scores) {
  scores[threadIdx.x] = mask[threadIdx.x] ? scores[threadIdx.x] : -1e9f;
}

void build_attention_mask(unsigned char* mask, int seq_len, cudaStream_t stream) {
  fill_mask<<<1, 128, 0, stream>>>(mask, seq_len);
}

void apply_attention_mask(const unsigned char* mask, float* scores, cudaStream_t stream) {
  // expect: streamrace-unsynchronized-cross-stream
  masked_softmax<<<1, 128, 0, stream>>>(mask, scores);
}

void attention(unsigned char* mask, float* scores, int seq_len, cudaStream_t data_stream,
               cudaStream_t compute) {
  build_attention_mask(mask, seq_len, data_stream);
#ifdef FIXED
  cudaEvent_t mask_ready;
  cudaEventCreateWithFlags(&mask_ready, cudaEventDisableTiming);
  cudaEventRecord(mask_ready, data_stream);
  cudaStreamWaitEvent(compute, mask_ready, 0);
  cudaEventDestroy(mask_ready);
#endif
  apply_attention_mask(mask, scores, compute);
}
