// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An overlap flag decides both where the gradient is produced and whether to wait: the wait is also
// skipped when profiling, although the side stream still produced the gradient then.
// Fixed: the wait has the same condition as the side-stream launch.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void bias_grad(const float* dout, float* grad) {
  grad[threadIdx.x] = dout[threadIdx.x];
}

void bias_backward(const float* dout, float* grad, size_t n, bool overlap, bool profiling,
                   ncclComm_t comm, cudaStream_t side, cudaStream_t comm_stream) {
  cudaEvent_t produced;
  cudaEventCreateWithFlags(&produced, cudaEventDisableTiming);
  if (overlap) {
    bias_grad<<<1, 256, 0, side>>>(dout, grad);
    cudaEventRecord(produced, side);
  } else {
    bias_grad<<<1, 256, 0, comm_stream>>>(dout, grad);
  }
#ifdef FIXED
  if (overlap) cudaStreamWaitEvent(comm_stream, produced, 0);
#else
  if (overlap && !profiling) cudaStreamWaitEvent(comm_stream, produced, 0);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  ncclAllReduce(grad, grad, n, ncclFloat, ncclSum, comm, comm_stream);
  cudaStreamSynchronize(comm_stream);
  cudaEventDestroy(produced);
}
