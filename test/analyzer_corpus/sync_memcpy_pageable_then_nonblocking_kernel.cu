// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Synchronous cudaMemcpy from pageable memory returns once the data is staged; the DMA on the
// legacy stream may still be writing the device buffer when a kernel on a non-blocking stream reads
// it. Fixed: the upload is a cudaMemcpyAsync on the kernel's own stream.
#include <cuda_runtime.h>

#include <vector>

__global__ void tokenize_lookup(const int* token_ids, float* embeddings) {
  embeddings[threadIdx.x] = static_cast<float>(token_ids[threadIdx.x]);
}

void embed_prompt(const std::vector<int>& token_ids, int* d_ids, float* d_embeddings) {
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  size_t bytes = token_ids.size() * sizeof(int);
#ifdef FIXED
  cudaMemcpyAsync(d_ids, token_ids.data(), bytes, cudaMemcpyHostToDevice, stream);
#else
  cudaMemcpy(d_ids, token_ids.data(), bytes, cudaMemcpyHostToDevice);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  tokenize_lookup<<<1, 128, 0, stream>>>(d_ids, d_embeddings);
  cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
}
