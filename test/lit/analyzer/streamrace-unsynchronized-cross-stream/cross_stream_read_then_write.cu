// Read-write: an all-reduce still reading a buffer on the communication stream while a copy on
// the compute stream overwrites it.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "nccl.h"

void racy(float* grads, float* reduced, const float* next, size_t n, cudaStream_t compute,
          cudaStream_t comm, ncclComm_t c) {
  ncclAllReduce(grads, reduced, n, ncclFloat, ncclSum, c, comm);
  cudaMemcpyAsync(grads, next, n * 4, cudaMemcpyDeviceToDevice, compute);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'grads' is written by cudaMemcpyAsync on stream 'compute' while ncclAllReduce on stream 'comm' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: ncclAllReduce reads 'grads' on stream 'comm' here
  // CHECK-FIXES: cudaEventRecord(streamrace_ready_8, comm);
  // CHECK-FIXES-NEXT: cudaStreamWaitEvent(compute, streamrace_ready_8, 0);
}

void ordered_by_event(float* grads, float* reduced, const float* next, size_t n,
                      cudaStream_t compute, cudaStream_t comm, ncclComm_t c, cudaEvent_t done) {
  ncclAllReduce(grads, reduced, n, ncclFloat, ncclSum, c, comm);
  cudaEventRecord(done, comm);
  cudaStreamWaitEvent(compute, done);
  cudaMemcpyAsync(grads, next, n * 4, cudaMemcpyDeviceToDevice, compute);
}
