// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// cudaMemset on device memory is asynchronous to the host and runs on the legacy stream; the
// accumulation kernel on a non-blocking stream may start before the zeroing finishes.
// Fixed: the zeroing is a cudaMemsetAsync on the accumulation stream.
#include <cuda_runtime.h>

__global__ void accumulate_loss(const float* per_token, float* total) {
  atomicAdd(total, per_token[threadIdx.x]);
}

class LossMeter {
public:
  LossMeter() {
    cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    cudaMalloc(&total_, sizeof(float));
  }

  void measure(const float* per_token_loss) {
#ifdef FIXED
    cudaMemsetAsync(total_, 0, sizeof(float), stream_);
#else
    cudaMemset(total_, 0, sizeof(float));
#endif
    // expect: streamrace-unsynchronized-cross-stream
    accumulate_loss<<<1, 256, 0, stream_>>>(per_token_loss, total_);
  }

private:
  cudaStream_t stream_;
  float* total_;
};
