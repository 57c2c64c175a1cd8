// Array elements: buffers and streams indexed by constants are told apart; a variable index
// may name any element.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

void distinct_elements(float* bufs[2], const float* src, cudaStream_t streams[2]) {
  cudaMemcpyAsync(bufs[0], src, 64, cudaMemcpyDeviceToDevice, streams[0]);
  cudaMemcpyAsync(bufs[1], src, 64, cudaMemcpyDeviceToDevice, streams[1]);
}

void same_element(float* bufs[2], const float* src, cudaStream_t streams[2]) {
  cudaMemcpyAsync(bufs[0], src, 64, cudaMemcpyDeviceToDevice, streams[0]);
  cudaMemsetAsync(bufs[0], 0, 64, streams[1]);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'bufs[0]' is written by cudaMemsetAsync on stream 'streams[1]' while cudaMemcpyAsync on stream 'streams[0]' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void variable_index(float* bufs[2], const float* src, cudaStream_t streams[2], int i) {
  cudaMemcpyAsync(bufs[i], src, 64, cudaMemcpyDeviceToDevice, streams[0]);
  cudaMemsetAsync(bufs[i], 0, 64, streams[1]);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'bufs[i]' is written by cudaMemsetAsync on stream 'streams[1]' while cudaMemcpyAsync on stream 'streams[0]' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
