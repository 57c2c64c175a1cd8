// A function that enqueues work and returns, by value, a local struct holding the event it
// recorded after that work (c10d's Work): the caller's copy is that event, so waiting on it
// orders the work, and using the result before the wait does not.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void reduce(float* data) { data[threadIdx.x] *= 0.5f; }
__global__ void apply(float* param, const float* grad) { param[threadIdx.x] -= grad[threadIdx.x]; }

struct Work {
  cudaEvent_t done;
  void wait(cudaStream_t stream) const { cudaStreamWaitEvent(stream, done, 0); }
};

Work reduce_async(float* grad, cudaStream_t side) {
  Work work;
  cudaEventCreateWithFlags(&work.done, cudaEventDisableTiming);
  reduce<<<1, 32, 0, side>>>(grad);
  cudaEventRecord(work.done, side);
  return work;
}

void waited_before_use(float* param, float* grad, cudaStream_t side, cudaStream_t current) {
  Work work = reduce_async(grad, side);
  work.wait(current);
  apply<<<1, 32, 0, current>>>(param, grad);
}

void used_before_the_wait(float* param, float* grad, cudaStream_t side, cudaStream_t current) {
  Work work = reduce_async(grad, side);
  apply<<<1, 32, 0, current>>>(param, grad);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'grad' is read by kernel 'apply' on stream 'current' while kernel 'reduce' on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  work.wait(current);
}
