// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// DeepSpeed ZeRO-2 overlap_comm: the event meant to cover the gradient copy into the IPG bucket is
// recorded before the copy, so the reduction stream's all-reduce reads the bucket while it fills.
// Fixed: the event is recorded after the copy.
#include <cuda_runtime.h>
#include <nccl.h>

struct IpgBucket {
  float* data;
  size_t elems;
};

void reduce_ipg_grads(IpgBucket& bucket, const float* const* grads, const size_t* sizes,
                      int num_grads, cudaStream_t compute, cudaStream_t reduction,
                      ncclComm_t comm) {
  cudaEvent_t bucket_filled;
  cudaEventCreateWithFlags(&bucket_filled, cudaEventDisableTiming);
#ifndef FIXED
  cudaEventRecord(bucket_filled, compute);
#endif
  size_t offset = 0;
  for (int g = 0; g < num_grads; ++g) {
    cudaMemcpyAsync(bucket.data + offset, grads[g], sizes[g] * sizeof(float),
                    cudaMemcpyDeviceToDevice, compute);
    offset += sizes[g];
  }
#ifdef FIXED
  cudaEventRecord(bucket_filled, compute);
#endif
  cudaStreamWaitEvent(reduction, bucket_filled, 0);
  // expect: streamrace-unsynchronized-cross-stream
  ncclAllReduce(bucket.data, bucket.data, offset, ncclFloat, ncclSum, comm, reduction);
  cudaStreamSynchronize(reduction);
  cudaEventDestroy(bucket_filled);
}
