// The wait happens on one branch only: the race remains on the other path.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "nccl.h"

void waits_on_one_path(float* buf, float* out, size_t n, bool overlap, cudaStream_t compute,
                       cudaStream_t comm, ncclComm_t c, cudaEvent_t ready) {
  cudaMemsetAsync(buf, 0, n, compute);
  if (!overlap) {
    cudaEventRecord(ready, compute);
    cudaStreamWaitEvent(comm, ready, 0);
  }
  ncclAllGather(buf, out, n, ncclFloat, c, comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by ncclAllGather on stream 'comm' while cudaMemsetAsync on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-FIXES: cudaEventRecord(streamrace_ready_7, compute);
  // CHECK-FIXES-NEXT: if (!overlap) {
  // CHECK-FIXES: cudaStreamWaitEvent(comm, streamrace_ready_7, 0);
  // CHECK-FIXES-NEXT: cudaEventDestroy(streamrace_ready_7);
  // CHECK-FIXES-NEXT: ncclAllGather(buf, out, n, ncclFloat, c, comm);
}

void waits_on_every_path(float* buf, float* out, size_t n, bool overlap, cudaStream_t compute,
                         cudaStream_t comm, ncclComm_t c, cudaEvent_t ready) {
  cudaMemsetAsync(buf, 0, n, compute);
  if (!overlap) {
    cudaEventRecord(ready, compute);
    cudaStreamWaitEvent(comm, ready, 0);
  } else {
    cudaStreamSynchronize(compute);
  }
  ncclAllGather(buf, out, n, ncclFloat, c, comm);
}

void write_on_one_path(float* buf, float* out, size_t n, bool refresh, cudaStream_t compute,
                       cudaStream_t comm, ncclComm_t c) {
  if (refresh) cudaMemsetAsync(buf, 0, n, compute);
  ncclAllGather(buf, out, n, ncclFloat, c, comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by ncclAllGather on stream 'comm' while cudaMemsetAsync on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
