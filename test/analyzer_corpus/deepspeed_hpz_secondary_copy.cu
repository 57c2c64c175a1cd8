// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// DeepSpeed hpZ (#5059): the secondary partition is copied on the compute stream in one method and
// all-gathered on the comm stream by the next one; the gather reads it while the copy writes it.
// Fixed: the copy's event is recorded in partition() and waited on by the comm stream in gather().
#include <cuda_runtime.h>
#include <nccl.h>

class SecondaryPartition {
public:
  SecondaryPartition(ncclComm_t comm, size_t shard_elems, int group_size)
      : comm_(comm), shard_elems_(shard_elems) {
    cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&comm_stream_, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming);
    cudaMalloc(&secondary_, shard_elems * sizeof(float));
    cudaMalloc(&gathered_, shard_elems * group_size * sizeof(float));
  }

  void partition(const float* full_param, int rank) {
    cudaMemcpyAsync(secondary_, full_param + rank * shard_elems_, shard_elems_ * sizeof(float),
                    cudaMemcpyDeviceToDevice, compute_);
#ifdef FIXED
    cudaEventRecord(copied_, compute_);
#endif
  }

  void gather() {
#ifdef FIXED
    cudaStreamWaitEvent(comm_stream_, copied_, 0);
#endif
    // expect: streamrace-unsynchronized-cross-stream
    ncclAllGather(secondary_, gathered_, shard_elems_, ncclFloat, comm_, comm_stream_);
  }

private:
  ncclComm_t comm_;
  size_t shard_elems_;
  cudaStream_t compute_;
  cudaStream_t comm_stream_;
  cudaEvent_t copied_;
  float* secondary_;
  float* gathered_;
};

void release_and_prefetch(SecondaryPartition& layer, const float* full_param, int rank) {
  layer.partition(full_param, rank);
  layer.gather();
}
