// The hpZ bug in miniature: a copy on the compute stream fills a buffer that an all-gather on the
// communication stream reads, with no event between them.
// RUN: %check_streamrace %s %t -- %mock_cuda
// RUN: %check_streamrace --tool=tidy %s %t.tidy -- %mock_cuda
#include "nccl.h"

void racy(float* secondary, const float* primary, float* gathered, size_t n,
          cudaStream_t compute, cudaStream_t comm, ncclComm_t c) {
  cudaMemcpyAsync(secondary, primary, n * 4, cudaMemcpyDeviceToDevice, compute);
  ncclAllGather(secondary, gathered, n, ncclFloat, c, comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'secondary' is read by ncclAllGather on stream 'comm' while cudaMemcpyAsync on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync writes 'secondary' on stream 'compute' here
  // CHECK-MESSAGES: :[[@LINE-4]]:81: note: an event recorded on stream 'compute' here, and waited on before the later access, would order the two
  // CHECK-FIXES: cudaMemcpyAsync(secondary, primary, n * 4, cudaMemcpyDeviceToDevice, compute);
  // CHECK-FIXES-NEXT: cudaEvent_t streamrace_ready_9;
  // CHECK-FIXES-NEXT: cudaEventCreateWithFlags(&streamrace_ready_9, cudaEventDisableTiming);
  // CHECK-FIXES-NEXT: cudaEventRecord(streamrace_ready_9, compute);
  // CHECK-FIXES-NEXT: cudaStreamWaitEvent(comm, streamrace_ready_9, 0);
  // CHECK-FIXES-NEXT: cudaEventDestroy(streamrace_ready_9);
  // CHECK-FIXES-NEXT: ncclAllGather(secondary, gathered, n, ncclFloat, c, comm);
}

void ordered_by_event(float* secondary, const float* primary, float* gathered, size_t n,
                      cudaStream_t compute, cudaStream_t comm, ncclComm_t c, cudaEvent_t ready) {
  cudaMemcpyAsync(secondary, primary, n * 4, cudaMemcpyDeviceToDevice, compute);
  cudaEventRecord(ready, compute);
  cudaStreamWaitEvent(comm, ready, 0);
  ncclAllGather(secondary, gathered, n, ncclFloat, c, comm);
}
