// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Data loader with one pinned staging buffer: the host fills it for batch i+1 while the async
// upload of batch i may still be reading it (a loop-carried host write). Fixed: the host waits for
// the previous upload's event before refilling the staging buffer.
#include <cuda_runtime.h>

#include <cstddef>

void load_batches(const float* const* samples, int batches, size_t elems, float* d_batches,
                  cudaStream_t upload) {
  float* staging = nullptr;
  cudaMallocHost(&staging, elems * sizeof(float));
  cudaEvent_t uploaded;
  cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming);
  for (int b = 0; b < batches; ++b) {
#ifdef FIXED
    if (b > 0) cudaEventSynchronize(uploaded);
#endif
    for (size_t i = 0; i < elems; ++i)
      // expect: streamrace-host-access-before-sync
      staging[i] = samples[b][i] * (1.0f / 255.0f);
    cudaMemcpyAsync(d_batches + b * elems, staging, elems * sizeof(float), cudaMemcpyHostToDevice,
                    upload);
    cudaEventRecord(uploaded, upload);
  }
  cudaStreamSynchronize(upload);
  cudaEventDestroy(uploaded);
  cudaFreeHost(staging);
}
