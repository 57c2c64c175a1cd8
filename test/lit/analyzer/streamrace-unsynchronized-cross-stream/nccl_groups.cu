// NCCL groups (docs/semantics.md rule 13): the streams one group uses on a communicator wait for
// each other's earlier work before its calls (also a stream only a later call of the group
// uses, in a loop or inside an error-checking macro), and after the group each of them is
// ordered after all of its calls. Two groups, or one group on two communicators, order nothing;
// nor does a group order a stream it does not use.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"
#include "nccl.h"

#define NCCLCHECK(cmd)                                                                           \
  do {                                                                                           \
    if ((cmd) != ncclSuccess) return;                                                            \
  } while (0)

__global__ void stage(float* out) { out[threadIdx.x] = 1.0f; }

void one_group_spans_both_streams(float* out, float* in, size_t n, ncclComm_t comm,
                                  cudaStream_t compute, cudaStream_t send_stream) {
  stage<<<1, 32, 0, compute>>>(out);
  ncclGroupStart();
  ncclRecv(in, n, ncclFloat, 0, comm, compute);
  ncclSend(out, n, ncclFloat, 1, comm, send_stream);
  ncclGroupEnd();
}

void two_groups(float* out, float* in, size_t n, ncclComm_t comm, cudaStream_t compute,
                cudaStream_t send_stream) {
  stage<<<1, 32, 0, compute>>>(out);
  ncclGroupStart();
  ncclRecv(in, n, ncclFloat, 0, comm, compute);
  ncclGroupEnd();
  ncclGroupStart();
  ncclSend(out, n, ncclFloat, 1, comm, send_stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'out' is read by ncclSend on stream 'send_stream' while kernel 'stage' on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  ncclGroupEnd();
}

void one_group_two_communicators(float* out, float* in, size_t n, ncclComm_t world,
                                 ncclComm_t node, cudaStream_t compute, cudaStream_t send_stream) {
  stage<<<1, 32, 0, compute>>>(out);
  ncclGroupStart();
  ncclRecv(in, n, ncclFloat, 0, world, compute);
  ncclSend(out, n, ncclFloat, 1, node, send_stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'out' is read by ncclSend on stream 'send_stream' while kernel 'stage' on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  ncclGroupEnd();
}

void after_a_nested_group(float* out, float* in, size_t n, ncclComm_t comm, cudaStream_t compute,
                          cudaStream_t send_stream) {
  ncclGroupStart();
  ncclGroupStart();
  ncclSend(out, n, ncclFloat, 1, comm, send_stream);
  ncclGroupEnd();
  ncclRecv(in, n, ncclFloat, 0, comm, compute);
  ncclGroupEnd();
  stage<<<1, 32, 0, compute>>>(out);
}

void later_call_brings_the_stream(float* out, float* in, size_t n, ncclComm_t comm,
                                  cudaStream_t compute, cudaStream_t send_stream) {
  stage<<<1, 32, 0, compute>>>(out);
  NCCLCHECK(ncclGroupStart());
  NCCLCHECK(ncclSend(out, n, ncclFloat, 1, comm, send_stream));
  for (int peer = 0; peer < 2; ++peer)
    NCCLCHECK(ncclRecv(in + peer * n, n, ncclFloat, peer, comm, compute));
  NCCLCHECK(ncclGroupEnd());
}

void stream_the_group_does_not_use(float* out, float* in, size_t n, ncclComm_t comm,
                                   cudaStream_t compute, cudaStream_t send_stream,
                                   cudaStream_t side) {
  stage<<<1, 32, 0, side>>>(out);
  NCCLCHECK(ncclGroupStart());
  NCCLCHECK(ncclSend(out, n, ncclFloat, 1, comm, send_stream));
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'out' is read by ncclSend on stream 'send_stream' while kernel 'stage' on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  NCCLCHECK(ncclRecv(in, n, ncclFloat, 0, comm, compute));
  NCCLCHECK(ncclGroupEnd());
}
