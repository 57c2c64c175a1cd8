// A struct initialized with braces binds its pointer and handle fields to what was given
// (Horovod's TensorTableEntry): a callee using the field uses the caller's buffer and event.
// A race reached through one call is reported once, at the callee's first racing access.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void backward(float* grad) { grad[threadIdx.x] = 1.0f; }

struct Entry {
  float* data;
  size_t bytes;
  cudaEvent_t ready;
};

void fuse(Entry& entry, float* fusion, cudaStream_t stream, bool wait_for_ready) {
  if (wait_for_ready) cudaStreamWaitEvent(stream, entry.ready, 0);
  cudaMemcpyAsync(fusion, entry.data, entry.bytes, cudaMemcpyDeviceToDevice, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'grad' is read by cudaMemcpyAsync on stream 'stream' while kernel 'backward' on stream 'framework' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  cudaMemcpyAsync(entry.data, fusion, entry.bytes, cudaMemcpyDeviceToDevice, stream);
}

void without_the_ready_event(float* grad, float* fusion, size_t bytes, cudaStream_t framework,
                             cudaStream_t stream) {
  Entry entry{grad, bytes, nullptr};
  cudaEventCreateWithFlags(&entry.ready, cudaEventDisableTiming);
  backward<<<1, 32, 0, framework>>>(grad);
  cudaEventRecord(entry.ready, framework);
  fuse(entry, fusion, stream, false);
}

void after_the_ready_event(float* grad, float* fusion, size_t bytes, cudaStream_t framework,
                           cudaStream_t stream) {
  Entry entry{grad, bytes, nullptr};
  cudaEventCreateWithFlags(&entry.ready, cudaEventDisableTiming);
  backward<<<1, 32, 0, framework>>>(grad);
  cudaEventRecord(entry.ready, framework);
  fuse(entry, fusion, stream, true);
}
