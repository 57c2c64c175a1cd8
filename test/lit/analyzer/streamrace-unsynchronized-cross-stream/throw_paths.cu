// A `throw` that leaves a function is no return to its caller: work pending when it is thrown
// does not reach the caller's next statement. Only the paths that return carry their pending work
// on. A throw caught in the function itself goes on in its handler.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void consume(float* inout) { inout[threadIdx.x] *= 2.0f; }

static void stage_or_throw(float* dst, const float* src, bool valid, cudaStream_t copy) {
  cudaMemcpyAsync(dst, src, 256, cudaMemcpyDeviceToDevice, copy);
  if (!valid) throw 1;
  cudaStreamSynchronize(copy);
}

void staged_then_consumed(float* dst, const float* src, bool valid, cudaStream_t copy,
                          cudaStream_t compute) {
  stage_or_throw(dst, src, valid, copy);
  consume<<<1, 64, 0, compute>>>(dst);
}

static void stage_without_waiting(float* dst, const float* src, bool valid, cudaStream_t copy) {
  if (!valid) throw 1;
  cudaMemcpyAsync(dst, src, 256, cudaMemcpyDeviceToDevice, copy);
}

void staged_then_consumed_unordered(float* dst, const float* src, bool valid, cudaStream_t copy,
                                    cudaStream_t compute) {
  stage_without_waiting(dst, src, valid, copy);
  consume<<<1, 64, 0, compute>>>(dst);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is read and written by kernel 'consume' on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void caught_in_place(float* dst, const float* src, bool valid, cudaStream_t copy,
                     cudaStream_t compute) {
  try {
    cudaMemcpyAsync(dst, src, 256, cudaMemcpyDeviceToDevice, copy);
    if (!valid) throw 1;
    cudaStreamSynchronize(copy);
  } catch (int) {
    consume<<<1, 64, 0, compute>>>(dst);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'dst' is read and written by kernel 'consume' on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  }
}
