// A kernel that touches a buffer only under `if (flag)`, flag one of its bool parameters, does
// not touch it when launched with flag false. The access is made under that condition: a host
// that orders the kernel only when it passed true is ordered on every path that touched the
// buffer (multi-gpu-programming-models' Jacobi solvers add to the norm only on checking steps).
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void relax(const float* in, float* norm, bool calculate_norm) {
  const float value = in[threadIdx.x];
  if (calculate_norm) norm[0] = value;
}

void ordered_wait_only_when_computed(const float* in, float* norm, bool calculate_norm,
                                     cudaStream_t compute, cudaStream_t reset, cudaEvent_t done) {
  relax<<<1, 32, 0, compute>>>(in, norm, calculate_norm);
  if (calculate_norm) {
    cudaEventRecord(done, compute);
    cudaStreamWaitEvent(reset, done, 0);
  }
  cudaMemsetAsync(norm, 0, sizeof(float), reset);
}

void racy_wait_on_the_other_path(const float* in, float* norm, bool calculate_norm,
                                 cudaStream_t compute, cudaStream_t reset, cudaEvent_t done) {
  relax<<<1, 32, 0, compute>>>(in, norm, calculate_norm);
  if (!calculate_norm) {
    cudaEventRecord(done, compute);
    cudaStreamWaitEvent(reset, done, 0);
  }
  cudaMemsetAsync(norm, 0, sizeof(float), reset);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'norm' is written by cudaMemsetAsync on stream 'reset' while kernel 'relax' on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-7]]:3: note: kernel 'relax' writes 'norm' on stream 'compute' here
}

void ordered_flag_constant_false(const float* in, float* norm, cudaStream_t compute,
                                 cudaStream_t reset) {
  relax<<<1, 32, 0, compute>>>(in, norm, false);
  cudaMemsetAsync(norm, 0, sizeof(float), reset);
}

void racy_flag_constant_true(const float* in, float* norm, cudaStream_t compute,
                             cudaStream_t reset) {
  relax<<<1, 32, 0, compute>>>(in, norm, true);
  cudaMemsetAsync(norm, 0, sizeof(float), reset);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'norm' is written by cudaMemsetAsync on stream 'reset' while kernel 'relax' on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: kernel 'relax' writes 'norm' on stream 'compute' here
}

// The unguarded input is read whatever the flag: writing it needs the kernel ordered first.
void racy_unguarded_buffer(float* in, float* norm, bool calculate_norm, cudaStream_t compute,
                           cudaStream_t reset, cudaEvent_t done) {
  relax<<<1, 32, 0, compute>>>(in, norm, calculate_norm);
  if (calculate_norm) {
    cudaEventRecord(done, compute);
    cudaStreamWaitEvent(reset, done, 0);
  }
  cudaMemsetAsync(in, 0, sizeof(float), reset);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'in' is written by cudaMemsetAsync on stream 'reset' while kernel 'relax' on stream 'compute' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-7]]:3: note: kernel 'relax' reads 'in' on stream 'compute' here
}
