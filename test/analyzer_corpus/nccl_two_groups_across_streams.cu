// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Pipeline-parallel p2p (NCCL "mixing multiple streams within the same group"): the receive and the
// send are in two groups, so the send stream reads the stage output the compute stream still
// writes. Fixed: one group spans both streams; NCCL makes each stream wait for the other's earlier
// work.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void stage_forward(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x] + 1.0f;
}

void pipeline_step(const float* stage_in, float* stage_out, float* next_in, size_t n, int prev,
                   int next, ncclComm_t comm, cudaStream_t compute, cudaStream_t send_stream) {
  stage_forward<<<1, 256, 0, compute>>>(stage_in, stage_out);
#ifdef FIXED
  ncclGroupStart();
  ncclRecv(next_in, n, ncclFloat, prev, comm, compute);
  ncclSend(stage_out, n, ncclFloat, next, comm, send_stream);
  ncclGroupEnd();
#else
  ncclGroupStart();
  ncclRecv(next_in, n, ncclFloat, prev, comm, compute);
  ncclGroupEnd();
  ncclGroupStart();
  // expect: streamrace-unsynchronized-cross-stream
  ncclSend(stage_out, n, ncclFloat, next, comm, send_stream);
  ncclGroupEnd();
#endif
}
