// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Megatron overlap_grad_reduce: the driver runs the optimizer step before finish_grad_sync(), so
// the optimizer reads the gradient shard the bucket's reduce-scatter is still writing. Fixed: the
// driver calls finish_grad_sync() first, which makes the compute stream wait.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void adam_update(float* params, const float* grad_shard) {
  params[threadIdx.x] -= 0.001f * grad_shard[threadIdx.x];
}

class GradBucket {
public:
  GradBucket(float* grads, float* shard, size_t shard_elems, ncclComm_t comm, cudaStream_t compute)
      : grads_(grads), shard_(shard), shard_elems_(shard_elems), comm_(comm), compute_(compute) {
    cudaStreamCreateWithFlags(&comm_stream_, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&grads_ready_, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&reduced_, cudaEventDisableTiming);
  }

  void start_grad_sync() {
    cudaEventRecord(grads_ready_, compute_);
    cudaStreamWaitEvent(comm_stream_, grads_ready_, 0);
    ncclReduceScatter(grads_, shard_, shard_elems_, ncclFloat, ncclSum, comm_, comm_stream_);
    cudaEventRecord(reduced_, comm_stream_);
  }

  void finish_grad_sync() { cudaStreamWaitEvent(compute_, reduced_, 0); }

  const float* shard() const { return shard_; }

private:
  float* grads_;
  float* shard_;
  size_t shard_elems_;
  ncclComm_t comm_;
  cudaStream_t compute_;
  cudaStream_t comm_stream_;
  cudaEvent_t grads_ready_;
  cudaEvent_t reduced_;
};

void optimizer_step(GradBucket& bucket, float* params, cudaStream_t compute) {
  // expect: streamrace-unsynchronized-cross-stream
  adam_update<<<1, 256, 0, compute>>>(params, bucket.shard());
}

void train_step(GradBucket& bucket, float* params, cudaStream_t compute) {
  bucket.start_grad_sync();
#ifdef FIXED
  bucket.finish_grad_sync();
  optimizer_step(bucket, params, compute);
#else
  optimizer_step(bucket, params, compute);
  bucket.finish_grad_sync();
#endif
}
