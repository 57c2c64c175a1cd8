// Wrappers several calls deep are followed; recursion is cut off without a crash.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "nccl.h"

static void gather_level3(float* b, float* out, ncclComm_t c, cudaStream_t s) {
  ncclAllGather(b, out, 1, ncclFloat, c, s);
}
static void gather_level2(float* b, float* out, ncclComm_t c, cudaStream_t s) {
  gather_level3(b, out, c, s);
}
static void gather_level1(float* b, float* out, ncclComm_t c, cudaStream_t s) {
  gather_level2(b, out, c, s);
}

static void refill(float* b, int depth, cudaStream_t s) {
  if (depth == 0) {
    cudaMemsetAsync(b, 0, 4, s);
    return;
  }
  refill(b, depth - 1, s);
}

void racy(float* b, float* out, ncclComm_t c, cudaStream_t compute, cudaStream_t comm) {
  cudaMemsetAsync(b, 0, 4, compute);
  gather_level1(b, out, c, comm);
  // CHECK-MESSAGES: :6:3: warning: 'b' is read by ncclAllGather on stream 'comm' while cudaMemsetAsync on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :9:3: note: 'gather_level3' is called here
  // CHECK-MESSAGES: :12:3: note: 'gather_level2' is called here
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: 'gather_level1' is called here
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: cudaMemsetAsync writes 'b' on stream 'compute' here
}

void recursive_refill(float* b, float* out, ncclComm_t c, cudaStream_t comm) {
  refill(b, 3, comm);
  gather_level1(b, out, c, comm);
}
