// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// DeepSpeed hpZ as PR #5216 fixed it: secondary partitions are copied on a side stream for every
// parameter and the prefetch all-gathers them on the comm stream, before the copies are done.
// Fixed: a device synchronization at the end of secondary partitioning (the PR's fix).
#include <cuda_runtime.h>
#include <nccl.h>

struct Param {
  float* full;
  float* secondary;
  float* gathered;
  size_t shard_elems;
};

void partition_secondary(Param* params, int count, int rank, cudaStream_t side) {
  for (int p = 0; p < count; ++p)
    cudaMemcpyAsync(params[p].secondary, params[p].full + rank * params[p].shard_elems,
                    params[p].shard_elems * sizeof(float), cudaMemcpyDeviceToDevice, side);
#ifdef FIXED
  cudaDeviceSynchronize();
#endif
}

void prefetch(Param* params, int count, ncclComm_t comm, cudaStream_t comm_stream) {
  ncclGroupStart();
  for (int p = 0; p < count; ++p)
    // expect: streamrace-unsynchronized-cross-stream
    ncclAllGather(params[p].secondary, params[p].gathered, params[p].shard_elems, ncclFloat, comm,
                  comm_stream);
  ncclGroupEnd();
}

void step(Param* params, int count, int rank, ncclComm_t comm, cudaStream_t side,
          cudaStream_t comm_stream) {
  partition_secondary(params, count, rank, side);
  prefetch(params, count, comm, comm_stream);
}
