// Branches on one boolean variable are correlated: work enqueued under `if (overlap)` is not
// pending on a path where `overlap` is false, so a wait under the same condition orders it.
// A wait under a different condition (`overlap && !profiling`) leaves a path unordered.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void produce(float* out) { out[threadIdx.x] = 1.0f; }
__global__ void consume(float* inout) { inout[threadIdx.x] *= 2.0f; }

void same_condition(float* grad, bool overlap, cudaStream_t side, cudaStream_t main_stream) {
  cudaEvent_t produced;
  cudaEventCreateWithFlags(&produced, cudaEventDisableTiming);
  if (overlap) {
    produce<<<1, 32, 0, side>>>(grad);
    cudaEventRecord(produced, side);
  } else {
    produce<<<1, 32, 0, main_stream>>>(grad);
  }
  if (overlap) cudaStreamWaitEvent(main_stream, produced, 0);
  consume<<<1, 32, 0, main_stream>>>(grad);
}

void negated_condition(float* grad, bool inline_work, cudaStream_t side, cudaStream_t main_stream) {
  cudaEvent_t produced;
  cudaEventCreateWithFlags(&produced, cudaEventDisableTiming);
  if (!inline_work) {
    produce<<<1, 32, 0, side>>>(grad);
    cudaEventRecord(produced, side);
  }
  if (!inline_work) cudaStreamWaitEvent(main_stream, produced, 0);
  consume<<<1, 32, 0, main_stream>>>(grad);
}

void different_condition(float* grad, bool overlap, bool profiling, cudaStream_t side,
                         cudaStream_t main_stream) {
  cudaEvent_t produced;
  cudaEventCreateWithFlags(&produced, cudaEventDisableTiming);
  if (overlap) {
    produce<<<1, 32, 0, side>>>(grad);
    cudaEventRecord(produced, side);
  }
  if (overlap && !profiling) cudaStreamWaitEvent(main_stream, produced, 0);
  consume<<<1, 32, 0, main_stream>>>(grad);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'grad' is read and written by kernel 'consume' on stream 'main_stream' while kernel 'produce' on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void condition_changed_in_between(float* grad, bool overlap, cudaStream_t side,
                                  cudaStream_t main_stream) {
  cudaEvent_t produced;
  cudaEventCreateWithFlags(&produced, cudaEventDisableTiming);
  if (overlap) {
    produce<<<1, 32, 0, side>>>(grad);
    cudaEventRecord(produced, side);
  }
  overlap = !overlap;
  if (overlap) cudaStreamWaitEvent(main_stream, produced, 0);
  consume<<<1, 32, 0, main_stream>>>(grad);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'grad' is read and written by kernel 'consume' on stream 'main_stream' while kernel 'produce' on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
