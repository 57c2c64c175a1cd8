// Work enqueued on a capturing stream is recorded into a graph, not run: it races with nothing at
// capture time. Ordinary work after the capture ends is checked again.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "nccl.h"

extern "C" cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode);
extern "C" cudaError_t cudaStreamEndCapture(cudaStream_t stream, void** pGraph);

void captured(float* send, float* gathered, cudaStream_t comm, cudaStream_t other, ncclComm_t c) {
  void* graph;
  cudaStreamBeginCapture(comm, 0);
  ncclAllGather(send, gathered, 1, ncclFloat, c, comm);
  cudaStreamEndCapture(comm, &graph);
  cudaMemsetAsync(send, 0, 4, other);
}

void after_capture(float* send, float* gathered, cudaStream_t comm, cudaStream_t other,
                   ncclComm_t c) {
  void* graph;
  cudaStreamBeginCapture(comm, 0);
  cudaStreamEndCapture(comm, &graph);
  ncclAllGather(send, gathered, 1, ncclFloat, c, comm);
  cudaMemsetAsync(send, 0, 4, other);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'send' is written by cudaMemsetAsync on stream 'other' while ncclAllGather on stream 'comm' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
