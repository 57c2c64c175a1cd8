// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Legacy default stream vs a non-blocking stream: the input is uploaded on stream 0 and read by a
// kernel on a stream created cudaStreamNonBlocking, which does not synchronize with stream 0.
// Fixed: the stream is created blocking, so the legacy stream's upload is ordered before its
// kernel.
#include <cuda_runtime.h>

__global__ void conv1d(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x] + in[threadIdx.x + 1];
}

void infer(const float* pinned_input, float* d_input, float* d_output, size_t bytes) {
  cudaStream_t infer_stream;
#ifdef FIXED
  cudaStreamCreate(&infer_stream);
#else
  cudaStreamCreateWithFlags(&infer_stream, cudaStreamNonBlocking);
#endif
  cudaMemcpyAsync(d_input, pinned_input, bytes, cudaMemcpyHostToDevice, 0);
  // expect: streamrace-unsynchronized-cross-stream
  conv1d<<<1, 255, 0, infer_stream>>>(d_input, d_output);
  cudaStreamSynchronize(infer_stream);
  cudaStreamDestroy(infer_stream);
}
