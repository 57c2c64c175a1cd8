// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host reads pinned memory after a single cudaStreamQuery whose "not ready" answer only triggers
// other work: the read of the metrics happens whether or not the copy finished.
// Fixed: the host polls cudaStreamQuery in a loop until it succeeds.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void reduce_metrics(const float* loss, float* metrics) {
  metrics[threadIdx.x] = loss[threadIdx.x];
}

void prepare_next_batch(int step) {
  std::printf("preparing batch %d\n", step + 1);
}

void log_metrics(const float* loss, float* d_metrics, int step, cudaStream_t stream) {
  float* metrics = nullptr;
  cudaHostAlloc(&metrics, 4 * sizeof(float), cudaHostAllocDefault);
  reduce_metrics<<<1, 4, 0, stream>>>(loss, d_metrics);
  cudaMemcpyAsync(metrics, d_metrics, 4 * sizeof(float), cudaMemcpyDeviceToHost, stream);
#ifdef FIXED
  while (cudaStreamQuery(stream) == cudaErrorNotReady)
    prepare_next_batch(step);
#else
  if (cudaStreamQuery(stream) == cudaErrorNotReady) prepare_next_batch(step);
#endif
  // expect: streamrace-host-access-before-sync
  std::printf("step %d loss %f\n", step, metrics[0]);
  cudaFreeHost(metrics);
}
