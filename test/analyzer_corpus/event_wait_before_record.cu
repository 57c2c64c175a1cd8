// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Wait issued before its record: the comm stream waits on the event before the compute stream
// records it, so the wait orders nothing and the all-reduce reads the gradient while it is being
// written. Fixed: the record comes first, after the gradient kernel.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void clip_grad(float* grad, float max_norm) {
  grad[threadIdx.x] = fminf(grad[threadIdx.x], max_norm);
}

void clip_and_reduce(float* grad, size_t elems, ncclComm_t comm, cudaStream_t compute,
                     cudaStream_t comm_stream) {
  cudaEvent_t clipped;
  cudaEventCreateWithFlags(&clipped, cudaEventDisableTiming);
#ifndef FIXED
  // expect: streamrace-wait-unrecorded-event
  cudaStreamWaitEvent(comm_stream, clipped, 0);
#endif
  clip_grad<<<1, 256, 0, compute>>>(grad, 1.0f);
  cudaEventRecord(clipped, compute);
#ifdef FIXED
  cudaStreamWaitEvent(comm_stream, clipped, 0);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  ncclAllReduce(grad, grad, elems, ncclFloat, ncclSum, comm, comm_stream);
  cudaStreamSynchronize(comm_stream);
  cudaEventDestroy(clipped);
}
