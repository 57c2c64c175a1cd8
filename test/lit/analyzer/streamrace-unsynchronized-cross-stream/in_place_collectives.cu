// In-place collectives name one buffer twice (send and receive): one access that reads and
// writes, so a race with an earlier access is one finding, however the two arguments spell the
// buffer. An in-place AllGather's send buffer is its own chunk of the receive buffer.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"
#include "nccl.h"

__global__ void scale(float* grads) { grads[threadIdx.x] *= 0.5f; }

void racy_all_reduce(float* grads, size_t n, ncclComm_t comm, cudaStream_t compute,
                     cudaStream_t comm_stream) {
  scale<<<1, 256, 0, compute>>>(grads);
  ncclAllReduce(grads, grads, n, ncclFloat, ncclSum, comm, comm_stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'grads' is read and written by ncclAllReduce on stream 'comm_stream' while kernel 'scale' on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: kernel 'scale' reads and writes 'grads' on stream 'compute' here
}

void racy_all_gather_own_chunk(float* full, size_t count, int rank, ncclComm_t comm,
                               cudaStream_t compute, cudaStream_t comm_stream) {
  float* own_chunk = full + rank * count;
  cudaMemsetAsync(own_chunk, 0, count * sizeof(float), compute);
  ncclAllGather(own_chunk, full, count, ncclFloat, comm, comm_stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'full' is read and written by ncclAllGather on stream 'comm_stream' while cudaMemsetAsync on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemsetAsync writes 'full' on stream 'compute' here
}

void ordered_all_reduce(float* grads, size_t n, ncclComm_t comm, cudaStream_t compute,
                        cudaStream_t comm_stream) {
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  scale<<<1, 256, 0, compute>>>(grads);
  cudaEventRecord(ready, compute);
  cudaStreamWaitEvent(comm_stream, ready, 0);
  ncclAllReduce(grads, grads, n, ncclFloat, ncclSum, comm, comm_stream);
}

void ordered_all_gather_own_chunk(float* full, size_t count, int rank, ncclComm_t comm,
                                  cudaStream_t compute, cudaStream_t comm_stream) {
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  float* own_chunk = full + rank * count;
  cudaMemsetAsync(own_chunk, 0, count * sizeof(float), compute);
  cudaEventRecord(ready, compute);
  cudaStreamWaitEvent(comm_stream, ready, 0);
  ncclAllGather(own_chunk, full, count, ncclFloat, comm, comm_stream);
}
