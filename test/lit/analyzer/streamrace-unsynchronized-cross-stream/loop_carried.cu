// Loop-carried: iteration i+1's copy overwrites the buffer iteration i's all-gather may still be
// reading, even though each iteration orders its own copy before its own gather. The fix-it is an
// event edge from one iteration's gather to the next iteration's copy (the first iteration's wait
// is a no-op), not a host synchronization that would end the overlap.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "nccl.h"

void racy(float* staging, const float* const* layers, float* out, size_t n, int count,
          cudaStream_t compute, cudaStream_t comm, ncclComm_t c, cudaEvent_t copied) {
  for (int i = 0; i < count; ++i) {
    cudaMemcpyAsync(staging, layers[i], n * 4, cudaMemcpyDeviceToDevice, compute);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'staging' is written by cudaMemcpyAsync on stream 'compute' while ncclAllGather on stream 'comm' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE+3]]:5: note: ncclAllGather reads 'staging' on stream 'comm' here
    cudaEventRecord(copied, compute);
    cudaStreamWaitEvent(comm, copied, 0);
    ncclAllGather(staging, out, n, ncclFloat, c, comm);
  }
  // CHECK-FIXES: cudaEvent_t streamrace_ready_16;
  // CHECK-FIXES-NEXT: cudaEventCreateWithFlags(&streamrace_ready_16, cudaEventDisableTiming);
  // CHECK-FIXES-NEXT: for (int i = 0; i < count; ++i) {
  // CHECK-FIXES-NEXT: cudaStreamWaitEvent(compute, streamrace_ready_16, 0);
  // CHECK-FIXES-NEXT: cudaMemcpyAsync(staging, layers[i], n * 4, cudaMemcpyDeviceToDevice, compute);
  // CHECK-FIXES: ncclAllGather(staging, out, n, ncclFloat, c, comm);
  // CHECK-FIXES-NEXT: cudaEventRecord(streamrace_ready_16, comm);
  // CHECK-FIXES-NEXT: }
  // CHECK-FIXES-NEXT: cudaEventDestroy(streamrace_ready_16);
}

void ordered_both_ways(float* staging, const float* const* layers, float* out, size_t n,
                       int count, cudaStream_t compute, cudaStream_t comm, ncclComm_t c,
                       cudaEvent_t copied, cudaEvent_t gathered) {
  for (int i = 0; i < count; ++i) {
    cudaMemcpyAsync(staging, layers[i], n * 4, cudaMemcpyDeviceToDevice, compute);
    cudaEventRecord(copied, compute);
    cudaStreamWaitEvent(comm, copied, 0);
    ncclAllGather(staging, out, n, ncclFloat, c, comm);
    cudaEventRecord(gathered, comm);
    cudaStreamWaitEvent(compute, gathered, 0);
  }
}

void first_iteration_clean(float* staging, const float* src, float* out, size_t n, int count,
                           cudaStream_t compute, cudaStream_t comm, ncclComm_t c) {
  for (int i = 0; i < count; ++i) {
    cudaMemcpyAsync(staging, src, n * 4, cudaMemcpyDeviceToDevice, compute);
    cudaStreamSynchronize(compute);
    ncclAllGather(staging, out, n, ncclFloat, c, comm);
    cudaStreamSynchronize(comm);
  }
}
