// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Work enqueued through a local lambda (a prefetch closure): the lambda copies the next batch on
// the copy stream and the compute stream's kernel reads it with no ordering. Fixed: the lambda
// records an event that the compute stream waits on.
#include <cuda_runtime.h>

__global__ void normalize(const float* batch, float* out) {
  out[threadIdx.x] = batch[threadIdx.x] / 255.0f;
}

void run_epoch(const float* const* host_batches, int num_batches, float* device_batch, float* out,
               size_t bytes, cudaStream_t copy_stream, cudaStream_t compute) {
  cudaEvent_t loaded;
  cudaEventCreateWithFlags(&loaded, cudaEventDisableTiming);
  auto prefetch = [&](int b) {
    cudaMemcpyAsync(device_batch, host_batches[b], bytes, cudaMemcpyHostToDevice, copy_stream);
#ifdef FIXED
    cudaEventRecord(loaded, copy_stream);
#endif
  };
  for (int b = 0; b < num_batches; ++b) {
    prefetch(b);
#ifdef FIXED
    cudaStreamWaitEvent(compute, loaded, 0);
#endif
    // expect: streamrace-unsynchronized-cross-stream
    normalize<<<1, 256, 0, compute>>>(device_batch, out);
    cudaStreamSynchronize(compute);
  }
  cudaEventDestroy(loaded);
}
