// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NCCL in-place AllGather (sendbuff = recvbuff + rank * count): the rank's chunk is copied in on
// the compute stream and gathered on the comm stream unordered, then the full buffer is read
// unordered. Fixed: events order the copy before the gather and the gather before the read.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void matmul_row(const float* weights, float* out) {
  out[threadIdx.x] = weights[threadIdx.x];
}

void gather_weights(float* full, const float* shard, size_t count, int rank, float* out,
                    ncclComm_t comm, cudaStream_t compute, cudaStream_t comm_stream) {
  float* own_chunk = full + rank * count;
  cudaMemcpyAsync(own_chunk, shard, count * sizeof(float), cudaMemcpyDeviceToDevice, compute);
#ifdef FIXED
  cudaEvent_t chunk_ready, gathered;
  cudaEventCreateWithFlags(&chunk_ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&gathered, cudaEventDisableTiming);
  cudaEventRecord(chunk_ready, compute);
  cudaStreamWaitEvent(comm_stream, chunk_ready, 0);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  ncclAllGather(own_chunk, full, count, ncclFloat, comm, comm_stream);
#ifdef FIXED
  cudaEventRecord(gathered, comm_stream);
  cudaStreamWaitEvent(compute, gathered, 0);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  matmul_row<<<1, 256, 0, compute>>>(full, out);
}
