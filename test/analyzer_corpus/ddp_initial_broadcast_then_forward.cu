// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// DDP construction broadcasts rank 0's parameters on the NCCL stream; the first forward on the
// compute stream reads the parameters without waiting for the broadcast to finish.
// Fixed: the compute stream waits for the broadcast's event.
// As ProcessGroupNCCL does, the NCCL stream first waits for the compute stream, whose earlier
// work may still be writing the parameters. Without the join, the constructor also breaks the
// stream-argument contract: the caller's later work on `compute` (here, the forward) may run
// during the broadcast, which is reported at the broadcast. first_step, which the broadcast only
// passes through, is not reported for it again: the join belongs in the constructor.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void linear(const float* weight, const float* x, float* y) {
  y[threadIdx.x] = weight[threadIdx.x] * x[threadIdx.x];
}

class DistributedModel {
public:
  DistributedModel(float* weight, size_t elems, ncclComm_t comm, cudaStream_t compute)
      : weight_(weight), compute_(compute) {
    cudaStreamCreateWithFlags(&nccl_stream_, cudaStreamNonBlocking);
    cudaEvent_t ready;
    cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
    cudaEventRecord(ready, compute_);
    cudaStreamWaitEvent(nccl_stream_, ready, 0);
    cudaEventDestroy(ready);
    // expect: streamrace-unsynchronized-cross-stream
    ncclBroadcast(weight_, weight_, elems, ncclFloat, 0, comm, nccl_stream_);
#ifdef FIXED
    cudaEvent_t synced;
    cudaEventCreateWithFlags(&synced, cudaEventDisableTiming);
    cudaEventRecord(synced, nccl_stream_);
    cudaStreamWaitEvent(compute_, synced, 0);
    cudaEventDestroy(synced);
#endif
  }

  void forward(const float* x, float* y) {
    // expect: streamrace-unsynchronized-cross-stream
    linear<<<1, 256, 0, compute_>>>(weight_, x, y);
  }

private:
  float* weight_;
  cudaStream_t compute_;
  cudaStream_t nccl_stream_;
};

void first_step(float* weight, size_t elems, const float* x, float* y, ncclComm_t comm,
                cudaStream_t compute) {
  DistributedModel model(weight, elems, comm, compute);
  model.forward(x, y);
}
