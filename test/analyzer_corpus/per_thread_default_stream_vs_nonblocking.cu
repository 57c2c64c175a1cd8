// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Per-thread default stream (nvcc --default-stream per-thread): it synchronizes with the legacy
// stream but not with non-blocking streams, so the copy stream reads the kernel's output unordered.
// Fixed: the copy stream waits for an event recorded on the per-thread default stream.
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include <cuda_runtime.h>

__global__ void decode_step(const float* logits, int* next_token) {
  next_token[0] = logits[0] > 0.0f;
}

void decode(const float* logits, int* d_token, int* d_history, int step) {
  cudaStream_t copy_stream;
  cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking);
  decode_step<<<1, 1>>>(logits, d_token);
#ifdef FIXED
  cudaEvent_t decoded;
  cudaEventCreateWithFlags(&decoded, cudaEventDisableTiming);
  cudaEventRecord(decoded, cudaStreamPerThread);
  cudaStreamWaitEvent(copy_stream, decoded, 0);
  cudaEventDestroy(decoded);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  cudaMemcpyAsync(d_history + step, d_token, sizeof(int), cudaMemcpyDeviceToDevice, copy_stream);
  cudaStreamSynchronize(copy_stream);
  cudaStreamDestroy(copy_stream);
}
