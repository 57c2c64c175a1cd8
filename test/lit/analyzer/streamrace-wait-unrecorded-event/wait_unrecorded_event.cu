// Waiting on an event recorded on no path orders nothing: reported. Waiting on one recorded on
// some paths only (a double buffer's first iteration) is a no-op where it was not recorded, which
// matters only when an access then goes unordered: the cross-stream check's finding, not this one.
// RUN: %check_streamrace %s %t -- %mock_cuda
// RUN: %check_streamrace --tool=tidy %s %t.tidy -- %mock_cuda
#include "cuda_runtime.h"

void never_recorded(float* buf, float* dst, cudaStream_t a, cudaStream_t b) {
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaMemsetAsync(buf, 0, 128, a);
  cudaStreamWaitEvent(b, ready, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: stream 'b' waits on event 'ready', which is not recorded on any path to this wait; the wait orders nothing [streamrace-wait-unrecorded-event]
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

void recorded_on_some_paths(float* buf, float* dst, cudaStream_t a, cudaStream_t b, bool produce) {
  cudaEvent_t ready;
  cudaEventCreate(&ready);
  if (produce) {
    cudaMemsetAsync(buf, 0, 128, a);
    cudaEventRecord(ready, a);
  }
  cudaStreamWaitEvent(b, ready, 0);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
}

void recorded_on_some_paths_work_on_all(float* buf, float* dst, cudaStream_t a, cudaStream_t b,
                                        bool signal) {
  cudaEvent_t ready;
  cudaEventCreate(&ready);
  cudaMemsetAsync(buf, 0, 128, a);
  if (signal) cudaEventRecord(ready, a);
  cudaStreamWaitEvent(b, ready, 0);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 'b' while cudaMemsetAsync on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

// A double buffer: iteration i waits for the event iteration i - 1 recorded after its copy.
void double_buffer(float* halo[2], const float* src, float* out, cudaStream_t copy,
                   cudaStream_t compute, int steps) {
  cudaEvent_t copied;
  cudaEventCreateWithFlags(&copied, cudaEventDisableTiming);
  for (int step = 0; step < steps; ++step) {
    cudaStreamWaitEvent(compute, copied, 0);
    cudaMemcpyAsync(out, halo[0], 64, cudaMemcpyDeviceToDevice, compute);
    cudaStreamSynchronize(compute);
    cudaMemcpyAsync(halo[0], src, 64, cudaMemcpyDeviceToDevice, copy);
    cudaEventRecord(copied, copy);
  }
}

void event_from_elsewhere(cudaStream_t b, cudaEvent_t recorded_by_caller) {
  cudaStreamWaitEvent(b, recorded_by_caller, 0);
}
