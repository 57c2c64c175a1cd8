// Calls to functions of the same translation unit are understood through their bodies: which
// stream parameter they enqueue on, which buffers they touch, what they record and wait for.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "nccl.h"

static void gather_partition(const float* part, float* full, size_t n, ncclComm_t c,
                             cudaStream_t stream) {
  ncclAllGather(part, full, n, ncclFloat, c, stream);
}

static void order(cudaStream_t producer, cudaStream_t consumer, cudaEvent_t event) {
  cudaEventRecord(event, producer);
  cudaStreamWaitEvent(consumer, event, 0);
}

void racy(float* part, const float* src, float* full, size_t n, cudaStream_t compute,
          cudaStream_t comm, ncclComm_t c) {
  cudaMemcpyAsync(part, src, n * 4, cudaMemcpyDeviceToDevice, compute);
  gather_partition(part, full, n, c, comm);
  // CHECK-MESSAGES: :8:3: warning: 'part' is read by ncclAllGather on stream 'comm' while cudaMemcpyAsync on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: 'gather_partition' is called here
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: cudaMemcpyAsync writes 'part' on stream 'compute' here
  // CHECK-FIXES: cudaStreamWaitEvent(comm, streamrace_ready_18, 0);
  // CHECK-FIXES-NEXT: cudaEventDestroy(streamrace_ready_18);
  // CHECK-FIXES-NEXT: gather_partition(part, full, n, c, comm);
}

void ordered_by_helper(float* part, const float* src, float* full, size_t n,
                       cudaStream_t compute, cudaStream_t comm, ncclComm_t c, cudaEvent_t e) {
  cudaMemcpyAsync(part, src, n * 4, cudaMemcpyDeviceToDevice, compute);
  order(compute, comm, e);
  gather_partition(part, full, n, c, comm);
}

void wrapper_on_same_stream(float* part, const float* src, float* full, size_t n,
                            cudaStream_t compute, ncclComm_t c) {
  cudaMemcpyAsync(part, src, n * 4, cudaMemcpyDeviceToDevice, compute);
  gather_partition(part, full, n, c, compute);
}
