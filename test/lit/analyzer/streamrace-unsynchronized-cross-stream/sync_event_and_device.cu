// Host waits order everything they cover: an event synchronization, a device synchronization,
// and cudaFree's implicit device synchronization (docs/semantics.md rule 8).
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

void event_sync(float* buf, float* dst, cudaStream_t a, cudaStream_t b, cudaEvent_t e) {
  cudaMemsetAsync(buf, 0, 128, a);
  cudaEventRecord(e, a);
  cudaEventSynchronize(e);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
}

void device_sync(float* buf, float* dst, cudaStream_t a, cudaStream_t b) {
  cudaMemsetAsync(buf, 0, 128, a);
  cudaDeviceSynchronize();
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
}

void free_syncs_device(float* buf, float* dst, float* scratch, cudaStream_t a, cudaStream_t b) {
  cudaMemsetAsync(buf, 0, 128, a);
  cudaFree(scratch);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
}

void event_recorded_too_early(float* buf, float* dst, cudaStream_t a, cudaStream_t b,
                              cudaEvent_t e) {
  cudaEventRecord(e, a);
  cudaMemsetAsync(buf, 0, 128, a);
  cudaEventSynchronize(e);
  cudaMemcpyAsync(dst, buf, 128, cudaMemcpyDeviceToDevice, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 'b' while cudaMemsetAsync on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
