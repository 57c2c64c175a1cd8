// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// PyTorch activation offload without record_stream: the tensor is freed on its allocation stream
// while the side stream's device-to-host copy into pinned memory may still read it.
// Fixed: the allocation stream waits for the copy's event before the free.
#include <cuda_runtime.h>

__global__ void gelu(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x] > 0.0f ? in[threadIdx.x] : 0.0f;
}

class ActivationStash {
public:
  explicit ActivationStash(size_t n) : n_(n) {
    cudaMallocHost(&host_, n * sizeof(float));
    cudaStreamCreateWithFlags(&d2h_, cudaStreamNonBlocking);
  }

  void offload(const float* input, cudaStream_t main) {
    float* activation = nullptr;
    cudaMallocAsync(&activation, n_ * sizeof(float), main);
    gelu<<<1, 256, 0, main>>>(input, activation);

    cudaEvent_t produced;
    cudaEventCreateWithFlags(&produced, cudaEventDisableTiming);
    cudaEventRecord(produced, main);
    cudaStreamWaitEvent(d2h_, produced, 0);
    cudaMemcpyAsync(host_, activation, n_ * sizeof(float), cudaMemcpyDeviceToHost, d2h_);
#ifdef FIXED
    cudaEvent_t offloaded;
    cudaEventCreateWithFlags(&offloaded, cudaEventDisableTiming);
    cudaEventRecord(offloaded, d2h_);
    cudaStreamWaitEvent(main, offloaded, 0);
    cudaEventDestroy(offloaded);
#endif
    // expect: streamrace-free-while-pending
    cudaFreeAsync(activation, main);
    cudaEventDestroy(produced);
  }

private:
  size_t n_;
  float* host_;
  cudaStream_t d2h_;
};
