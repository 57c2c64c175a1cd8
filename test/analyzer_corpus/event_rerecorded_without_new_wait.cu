// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Chunked upload pipeline: the compute stream waits on the chunk event once, for the first chunk;
// later chunks re-record the event but nothing waits again, so their kernels read chunks in flight.
// Fixed: the compute stream waits on the event after every record.
#include <cuda_runtime.h>

__global__ void decompress(const unsigned char* chunk, size_t n, float* out) {
  for (size_t i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = chunk[i] * (1.0f / 255.0f);
}

void upload_and_decompress(const unsigned char* pinned_src, unsigned char* staging, float* out,
                           size_t chunk_bytes, int chunks, cudaStream_t copy_stream,
                           cudaStream_t compute) {
  cudaEvent_t chunk_ready;
  cudaEventCreateWithFlags(&chunk_ready, cudaEventDisableTiming);
  cudaMemcpyAsync(staging, pinned_src, chunk_bytes, cudaMemcpyHostToDevice, copy_stream);
  cudaEventRecord(chunk_ready, copy_stream);
  cudaStreamWaitEvent(compute, chunk_ready, 0);
  decompress<<<1, 256, 0, compute>>>(staging, chunk_bytes, out);
  for (int c = 1; c < chunks; ++c) {
    cudaMemcpyAsync(staging + c * chunk_bytes, pinned_src + c * chunk_bytes, chunk_bytes,
                    cudaMemcpyHostToDevice, copy_stream);
    cudaEventRecord(chunk_ready, copy_stream);
#ifdef FIXED
    cudaStreamWaitEvent(compute, chunk_ready, 0);
#endif
    // expect: streamrace-unsynchronized-cross-stream
    decompress<<<1, 256, 0, compute>>>(staging + c * chunk_bytes, chunk_bytes,
                                       out + c * chunk_bytes);
  }
  cudaStreamSynchronize(compute);
  cudaEventDestroy(chunk_ready);
}
