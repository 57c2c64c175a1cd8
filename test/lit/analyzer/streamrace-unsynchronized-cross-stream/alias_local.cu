// Aliases through locals: the copy writes through one name, the gather reads through another.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "nccl.h"

void racy(float* partition, const float* src, float* out, size_t n, cudaStream_t compute,
          cudaStream_t comm, ncclComm_t c) {
  float* secondary = partition;
  cudaStream_t gather_stream = comm;
  cudaMemcpyAsync(secondary + 0, src, n * 4, cudaMemcpyDeviceToDevice, compute);
  ncclAllGather(partition, out, n, ncclFloat, c, gather_stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'partition' is read by ncclAllGather on stream 'comm' while cudaMemcpyAsync on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void same_stream_through_alias(float* partition, const float* src, float* out, size_t n,
                               cudaStream_t compute, ncclComm_t c) {
  float* secondary = partition;
  cudaStream_t gather_stream = compute;
  cudaMemcpyAsync(secondary, src, n * 4, cudaMemcpyDeviceToDevice, compute);
  ncclAllGather(partition, out, n, ncclFloat, c, gather_stream);
}

void rebound_alias(float* a, float* b, const float* src, float* out, size_t n,
                   cudaStream_t compute, cudaStream_t comm, ncclComm_t c) {
  float* p = a;
  cudaMemcpyAsync(p, src, n * 4, cudaMemcpyDeviceToDevice, compute);
  p = b;
  ncclAllGather(p, out, n, ncclFloat, c, comm);
}
