// Aliases through fields: the buffers and streams live in an object, as in a real trainer.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "nccl.h"

struct Partition {
  float* primary;
  float* secondary;
  float* gathered;
  size_t count;
  cudaStream_t compute;
  cudaStream_t comm;
  ncclComm_t group;
  cudaEvent_t ready;

  void refresh_and_gather() {
    cudaMemcpyAsync(secondary, primary, count * 4, cudaMemcpyDeviceToDevice, compute);
    ncclAllGather(secondary, gathered, count, ncclFloat, group, comm);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'this->secondary' is read by ncclAllGather on stream 'this->comm' while cudaMemcpyAsync on stream 'this->compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // CHECK-FIXES: cudaEventRecord(streamrace_ready_16, this->compute);
    // CHECK-FIXES-NEXT: cudaStreamWaitEvent(this->comm, streamrace_ready_16, 0);
  }

  void refresh_and_gather_ordered() {
    cudaMemcpyAsync(secondary, primary, count * 4, cudaMemcpyDeviceToDevice, compute);
    cudaEventRecord(ready, compute);
    cudaStreamWaitEvent(comm, ready, 0);
    ncclAllGather(secondary, gathered, count, ncclFloat, group, comm);
  }
};

void through_object(Partition& p) {
  cudaMemsetAsync(p.gathered, 0, 64, p.compute);
  ncclAllGather(p.secondary, p.gathered, p.count, ncclFloat, p.group, p.comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'p.gathered' is written by ncclAllGather on stream 'p.comm' while cudaMemsetAsync on stream 'p.compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
