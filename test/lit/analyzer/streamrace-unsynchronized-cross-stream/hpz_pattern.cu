// The ZeRO++ hpZ secondary-partition bug (DeepSpeed #5059) in the shape of a trainer: the
// secondary partition is filled by a device copy on the compute stream, then all-gathered on the
// communication stream. The buggy variant has no ordering; the two fixes (an event, or doing
// the copy on the communication stream) are clean.
// RUN: %check_streamrace %s %t -- %mock_cuda
// RUN: %check_streamrace --tool=tidy %s %t.tidy -- %mock_cuda
#include "nccl.h"

struct Stage3Parameter {
  float* full;           // gathered parameter, all ranks
  float* primary;        // this rank's primary partition
  float* secondary;      // hpZ secondary partition (intra-node copy)
  size_t partition_numel;
};

class HpzEngine {
public:
  void release_to_secondary_buggy(Stage3Parameter& p) {
    copy_to_secondary(p, compute_);
    gather_secondary(p);
    // CHECK-MESSAGES: :53:5: warning: 'p.secondary' is read by ncclAllGather on stream 'this->comm_' while cudaMemcpyAsync on stream 'this->compute_' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE-2]]:5: note: 'gather_secondary' is called here
    // CHECK-MESSAGES: :48:5: note: cudaMemcpyAsync writes 'p.secondary' on stream 'this->compute_' here
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: 'copy_to_secondary' is called here
    // CHECK-FIXES: copy_to_secondary(p, compute_);
    // CHECK-FIXES-NEXT: cudaEvent_t streamrace_ready_19;
    // CHECK-FIXES-NEXT: cudaEventCreateWithFlags(&streamrace_ready_19, cudaEventDisableTiming);
    // CHECK-FIXES-NEXT: cudaEventRecord(streamrace_ready_19, this->compute_);
    // CHECK-FIXES-NEXT: cudaStreamWaitEvent(this->comm_, streamrace_ready_19, 0);
    // CHECK-FIXES-NEXT: cudaEventDestroy(streamrace_ready_19);
    // CHECK-FIXES-NEXT: gather_secondary(p);
  }

  void release_to_secondary_event_fix(Stage3Parameter& p) {
    copy_to_secondary(p, compute_);
    cudaEventRecord(secondary_ready_, compute_);
    cudaStreamWaitEvent(comm_, secondary_ready_, 0);
    gather_secondary(p);
  }

  void release_to_secondary_stream_fix(Stage3Parameter& p) {
    copy_to_secondary(p, comm_);
    gather_secondary(p);
  }

private:
  void copy_to_secondary(Stage3Parameter& p, cudaStream_t stream) {
    cudaMemcpyAsync(p.secondary, p.primary, p.partition_numel * sizeof(float),
                    cudaMemcpyDeviceToDevice, stream);
  }

  void gather_secondary(Stage3Parameter& p) {
    ncclAllGather(p.secondary, p.full, p.partition_numel, ncclFloat, intra_node_, comm_);
  }

  cudaStream_t compute_;
  cudaStream_t comm_;
  cudaEvent_t secondary_ready_;
  ncclComm_t intra_node_;
};
