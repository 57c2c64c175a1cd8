// Kernel summaries make launches exact: a kernel that only reads a buffer does not conflict
// with another reader, but its written parameter does conflict.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void scale(const float* in, float* out, float factor) {
  out[threadIdx.x] = in[threadIdx.x] * factor;
}

void readers_share(float* x, float* y1, float* y2, cudaStream_t s1, cudaStream_t s2) {
  scale<<<1, 32, 0, s1>>>(x, y1, 2.0f);
  scale<<<1, 32, 0, s2>>>(x, y2, 3.0f);
}

void writer_races(float* x, float* y, cudaStream_t s1, cudaStream_t s2) {
  scale<<<1, 32, 0, s1>>>(x, y, 2.0f);
  scale<<<1, 32, 0, s2>>>(y, x, 3.0f);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'y' is read by kernel 'scale' on stream 's2' while kernel 'scale' on stream 's1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'x' is written by kernel 'scale' on stream 's2' while kernel 'scale' on stream 's1' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
