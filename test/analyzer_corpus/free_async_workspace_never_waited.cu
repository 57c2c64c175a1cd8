// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Stream-ordered workspace (cuBLAS/CUTLASS split-K style): the workspace is used by the GEMM on the
// worker stream and freed with cudaFreeAsync on the owner stream, which never waited for the GEMM.
// Fixed: release() makes the owner stream wait for the worker's event before freeing.
#include <cuda_runtime.h>

__global__ void splitk_partial(const float* a, const float* b, float* partials) {
  partials[blockIdx.x * blockDim.x + threadIdx.x] = a[threadIdx.x] * b[threadIdx.x];
}

class GemmWorkspace {
public:
  GemmWorkspace(size_t bytes, cudaStream_t owner) : owner_(owner) {
    cudaMallocAsync(&partials_, bytes, owner_);
    cudaEventCreateWithFlags(&allocated_, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&used_, cudaEventDisableTiming);
    cudaEventRecord(allocated_, owner_);
  }

  void run(const float* a, const float* b, cudaStream_t worker) {
    cudaStreamWaitEvent(worker, allocated_, 0);
    splitk_partial<<<8, 128, 0, worker>>>(a, b, partials_);
    cudaEventRecord(used_, worker);
  }

  void release() {
#ifdef FIXED
    cudaStreamWaitEvent(owner_, used_, 0);
#endif
    // expect: streamrace-free-while-pending
    cudaFreeAsync(partials_, owner_);
  }

private:
  float* partials_ = nullptr;
  cudaStream_t owner_;
  cudaEvent_t allocated_;
  cudaEvent_t used_;
};

void gemm(const float* a, const float* b, cudaStream_t owner, cudaStream_t worker) {
  GemmWorkspace workspace(8 * 128 * sizeof(float), owner);
  workspace.run(a, b, worker);
  workspace.release();
}
