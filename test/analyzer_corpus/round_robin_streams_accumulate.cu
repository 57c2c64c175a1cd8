// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Round-robin over a stream pool: micro-batch i accumulates into the same gradient buffer on
// streams[i % 2], so iteration i+1's kernel on the other stream writes while iteration i's still
// runs. Fixed: each iteration's stream waits for the event the previous iteration recorded.
#include <cuda_runtime.h>

__global__ void accumulate_grad(const float* micro_batch, float* grad_accum) {
  grad_accum[threadIdx.x] += micro_batch[threadIdx.x];
}

void accumulate(const float* const* micro_batches, int count, float* grad_accum,
                cudaStream_t streams[2]) {
  cudaEvent_t accumulated;
  cudaEventCreateWithFlags(&accumulated, cudaEventDisableTiming);
  for (int i = 0; i < count; ++i) {
    cudaStream_t stream = streams[i % 2];
#ifdef FIXED
    if (i > 0) cudaStreamWaitEvent(stream, accumulated, 0);
#endif
    // expect: streamrace-unsynchronized-cross-stream
    accumulate_grad<<<1, 256, 0, stream>>>(micro_batches[i], grad_accum);
    cudaEventRecord(accumulated, stream);
  }
  cudaStreamSynchronize(streams[0]);
  cudaStreamSynchronize(streams[1]);
  cudaEventDestroy(accumulated);
}
