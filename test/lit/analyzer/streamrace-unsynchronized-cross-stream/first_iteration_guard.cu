// A wait guarded by the loop counter so that only the first iteration skips it (`if (i > 0)`,
// `if (layer != start)`): in the first iteration nothing the loop does after the guard has run
// yet, so there is nothing to wait for. Work of the same iteration before the guard, and work an
// enclosing loop's earlier iteration left pending, still race.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void produce(float* bucket) { bucket[threadIdx.x] = 1.0f; }
__global__ void consume(const float* bucket, float* out) { out[threadIdx.x] = bucket[threadIdx.x]; }

void ordered_skip_in_first_iteration(float* bucket, float* out, int steps, cudaStream_t compute,
                                     cudaStream_t comm) {
  cudaEvent_t ready, consumed;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming);
  for (int i = 0; i < steps; ++i) {
    if (i > 0) cudaStreamWaitEvent(compute, consumed, 0);
    produce<<<1, 32, 0, compute>>>(bucket);
    cudaEventRecord(ready, compute);
    cudaStreamWaitEvent(comm, ready, 0);
    consume<<<1, 32, 0, comm>>>(bucket, out);
    cudaEventRecord(consumed, comm);
  }
  cudaStreamSynchronize(comm);
}

void ordered_counting_down(float* bucket, float* out, int layers, cudaStream_t compute,
                           cudaStream_t comm) {
  cudaEvent_t ready, consumed;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming);
  for (int layer = layers - 1; layer >= 0; --layer) {
    if (layer != layers - 1) cudaStreamWaitEvent(compute, consumed, 0);
    produce<<<1, 32, 0, compute>>>(bucket);
    cudaEventRecord(ready, compute);
    cudaStreamWaitEvent(comm, ready, 0);
    consume<<<1, 32, 0, comm>>>(bucket, out);
    cudaEventRecord(consumed, comm);
  }
  cudaStreamSynchronize(comm);
}

void racy_skips_two_iterations(float* bucket, float* out, int steps, cudaStream_t compute,
                               cudaStream_t comm) {
  cudaEvent_t ready, consumed;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming);
  for (int i = 0; i < steps; ++i) {
    if (i > 1) cudaStreamWaitEvent(compute, consumed, 0);
    produce<<<1, 32, 0, compute>>>(bucket);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'bucket' is written by kernel 'produce' on stream 'compute' while kernel 'consume' on stream 'comm' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE+3]]:5: note: kernel 'consume' reads 'bucket' on stream 'comm' here
    cudaEventRecord(ready, compute);
    cudaStreamWaitEvent(comm, ready, 0);
    consume<<<1, 32, 0, comm>>>(bucket, out);
    cudaEventRecord(consumed, comm);
  }
  cudaStreamSynchronize(comm);
}

void racy_same_iteration_before_guard(float* bucket, float* out, int steps, cudaStream_t compute,
                                      cudaStream_t comm) {
  cudaEvent_t consumed;
  cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming);
  for (int i = 0; i < steps; ++i) {
    produce<<<1, 32, 0, compute>>>(bucket);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'bucket' is written by kernel 'produce' on stream 'compute' while kernel 'consume' on stream 'comm' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE+2]]:5: note: kernel 'consume' reads 'bucket' on stream 'comm' here
    if (i > 0) cudaStreamWaitEvent(comm, consumed, 0);
    consume<<<1, 32, 0, comm>>>(bucket, out);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'bucket' is read by kernel 'consume' on stream 'comm' while kernel 'produce' on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE-6]]:5: note: kernel 'produce' writes 'bucket' on stream 'compute' here
    cudaEventRecord(consumed, comm);
  }
  cudaStreamSynchronize(comm);
}

void racy_enclosing_loop_left_work_pending(float* bucket, float* out, int epochs, int steps,
                                           cudaStream_t compute, cudaStream_t comm) {
  cudaEvent_t ready, consumed;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming);
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (int i = 0; i < steps; ++i) {
      if (i > 0) cudaStreamWaitEvent(compute, consumed, 0);
      produce<<<1, 32, 0, compute>>>(bucket);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'bucket' is written by kernel 'produce' on stream 'compute' while kernel 'consume' on stream 'comm' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
      // CHECK-MESSAGES: :[[@LINE+3]]:7: note: kernel 'consume' reads 'bucket' on stream 'comm' here
      cudaEventRecord(ready, compute);
      cudaStreamWaitEvent(comm, ready, 0);
      consume<<<1, 32, 0, comm>>>(bucket, out);
      cudaEventRecord(consumed, comm);
    }
  }
  cudaStreamSynchronize(comm);
}
