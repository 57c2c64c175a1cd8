// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loss scaler overflow check (apex/DeepSpeed style): the found-inf flag is copied into pinned
// memory asynchronously and the host reads it before the copy is known to be done. Fixed: the host
// synchronizes the stream before reading the flag.
#include <cuda_runtime.h>

__global__ void check_overflow(const float* grads, int* found_inf) {
  if (!isfinite(grads[threadIdx.x])) found_inf[0] = 1;
}

class DynamicLossScaler {
public:
  DynamicLossScaler() {
    cudaMallocHost(&found_inf_host_, sizeof(int));
    cudaMalloc(&found_inf_, sizeof(int));
  }

  bool should_skip_step(const float* grads, cudaStream_t stream) {
    cudaMemsetAsync(found_inf_, 0, sizeof(int), stream);
    check_overflow<<<1, 256, 0, stream>>>(grads, found_inf_);
    cudaMemcpyAsync(found_inf_host_, found_inf_, sizeof(int), cudaMemcpyDeviceToHost, stream);
#ifdef FIXED
    cudaStreamSynchronize(stream);
#endif
    // expect: streamrace-host-access-before-sync
    if (*found_inf_host_ != 0) {
      scale_ /= 2.0f;
      return true;
    }
    return false;
  }

private:
  int* found_inf_host_;
  int* found_inf_;
  float scale_ = 65536.0f;
};
