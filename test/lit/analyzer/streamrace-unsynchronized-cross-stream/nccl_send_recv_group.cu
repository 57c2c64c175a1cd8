// Point-to-point inside a group: the receive writes its buffer on the communication stream; a
// kernel reading it on the compute stream must wait for that stream.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "nccl.h"

__global__ void consume(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }

void racy(float* send, float* recv, float* out, size_t n, int peer, ncclComm_t c,
          cudaStream_t comm, cudaStream_t compute) {
  ncclGroupStart();
  ncclSend(send, n, ncclFloat, peer, c, comm);
  ncclRecv(recv, n, ncclFloat, peer, c, comm);
  ncclGroupEnd();
  consume<<<1, 32, 0, compute>>>(recv, out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'recv' is read by kernel 'consume' on stream 'compute' while ncclRecv on stream 'comm' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void ordered(float* send, float* recv, float* out, size_t n, int peer, ncclComm_t c,
             cudaStream_t comm, cudaStream_t compute, cudaEvent_t received) {
  ncclGroupStart();
  ncclSend(send, n, ncclFloat, peer, c, comm);
  ncclRecv(recv, n, ncclFloat, peer, c, comm);
  ncclGroupEnd();
  cudaEventRecord(received, comm);
  cudaStreamWaitEvent(compute, received);
  consume<<<1, 32, 0, compute>>>(recv, out);
}
