// A project's own wrapper whose body the analyzer cannot see is understood through a user model
// (which argument is read, written, a size, a stream). Without the model its declaration, with
// one stream parameter, makes it a launcher (external_launchers.h): the same finding.
// RUN: %check_streamrace %s %t --model=%inputs/wrappers.json -- %mock_cuda
// RUN: %check_streamrace %s %t.declared -- %mock_cuda
#include "cuda_runtime.h"

namespace comm {
void all_gather(const float* send, float* recv, size_t count, cudaStream_t stream);
}

void racy(float* shard, float* full, size_t n, cudaStream_t compute, cudaStream_t comm_stream) {
  cudaMemsetAsync(shard, 0, n * 4, compute);
  comm::all_gather(shard, full, n, comm_stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'shard' is read by all_gather on stream 'comm_stream' while cudaMemsetAsync on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void ordered(float* shard, float* full, size_t n, cudaStream_t compute, cudaStream_t comm_stream,
             cudaEvent_t e) {
  cudaMemsetAsync(shard, 0, n * 4, compute);
  cudaEventRecord(e, compute);
  cudaStreamWaitEvent(comm_stream, e, 0);
  comm::all_gather(shard, full, n, comm_stream);
}
