// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// PyTorch c10d async_op=True: the all-reduce's output is consumed on the current stream before
// work.wait(), which is what makes the current stream wait for the NCCL stream.
// Fixed: work.wait() comes before the consumer kernel.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void apply_grad(float* param, const float* grad, float lr) {
  param[threadIdx.x] -= lr * grad[threadIdx.x];
}

struct AllReduceWork {
  cudaEvent_t done;
  void wait(cudaStream_t current) const { cudaStreamWaitEvent(current, done, 0); }
};

AllReduceWork all_reduce_async(float* grad, size_t n, ncclComm_t comm, cudaStream_t nccl_stream,
                               cudaStream_t current) {
  AllReduceWork work;
  cudaEvent_t inputs_ready;
  cudaEventCreateWithFlags(&inputs_ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&work.done, cudaEventDisableTiming);
  cudaEventRecord(inputs_ready, current);
  cudaStreamWaitEvent(nccl_stream, inputs_ready, 0);
  ncclAllReduce(grad, grad, n, ncclFloat, ncclSum, comm, nccl_stream);
  cudaEventRecord(work.done, nccl_stream);
  cudaEventDestroy(inputs_ready);
  return work;
}

void sgd_step(float* param, float* grad, size_t n, ncclComm_t comm, cudaStream_t nccl_stream,
              cudaStream_t current) {
  AllReduceWork work = all_reduce_async(grad, n, comm, nccl_stream, current);
#ifdef FIXED
  work.wait(current);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  apply_grad<<<1, 256, 0, current>>>(param, grad, 0.01f);
#ifndef FIXED
  work.wait(current);
#endif
}
