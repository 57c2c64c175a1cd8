// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Streams created with priorities (a high-priority communication stream, as Megatron/NCCL users
// do): priority only schedules; the high-priority stream's all-reduce still reads unordered input.
// Fixed: the high-priority stream waits for the low-priority stream's event.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void moe_combine(const float* expert_out, float* tokens) {
  tokens[threadIdx.x] = expert_out[threadIdx.x];
}

void moe_layer(const float* expert_out, float* tokens, size_t n, ncclComm_t comm) {
  int least, greatest;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);
  cudaStream_t compute, comm_stream;
  cudaStreamCreateWithPriority(&compute, cudaStreamNonBlocking, least);
  cudaStreamCreateWithPriority(&comm_stream, cudaStreamNonBlocking, greatest);
  moe_combine<<<1, 256, 0, compute>>>(expert_out, tokens);
#ifdef FIXED
  cudaEvent_t combined;
  cudaEventCreateWithFlags(&combined, cudaEventDisableTiming);
  cudaEventRecord(combined, compute);
  cudaStreamWaitEvent(comm_stream, combined, 0);
  cudaEventDestroy(combined);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  ncclAllReduce(tokens, tokens, n, ncclFloat, ncclSum, comm, comm_stream);
  cudaStreamSynchronize(comm_stream);
}
