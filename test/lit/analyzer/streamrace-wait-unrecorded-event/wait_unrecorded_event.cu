// Waiting on an event nothing recorded orders nothing.
// RUN: %check_streamrace %s %t -- %mock_cuda
// RUN: %check_streamrace --tool=tidy %s %t.tidy -- %mock_cuda
#include "cuda_runtime.h"

void never_recorded(float* buf, float* dst, cudaStream_t a, cudaStream_t b) {
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaMemsetAsync(buf, 0, 128, a);
  cudaStreamWaitEvent(b, ready, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: stream 'b' waits on event 'ready', which is not recorded before this wait; the wait orders nothing [streamrace-wait-unrecorded-event]
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: event 'ready' is created here
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 'b' while cudaMemsetAsync on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void recorded_first(float* buf, float* dst, cudaStream_t a, cudaStream_t b) {
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaMemsetAsync(buf, 0, 128, a);
  cudaEventRecord(ready, a);
  cudaStreamWaitEvent(b, ready, 0);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
}

void recorded_on_some_paths(float* buf, cudaStream_t a, cudaStream_t b, bool produce) {
  cudaEvent_t ready;
  cudaEventCreate(&ready);
  if (produce) {
    cudaMemsetAsync(buf, 0, 128, a);
    cudaEventRecord(ready, a);
  }
  cudaStreamWaitEvent(b, ready, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: stream 'b' waits on event 'ready', which is not recorded on every path to this wait; the wait orders nothing [streamrace-wait-unrecorded-event]
}

void event_from_elsewhere(cudaStream_t b, cudaEvent_t recorded_by_caller) {
  cudaStreamWaitEvent(b, recorded_by_caller, 0);
}
