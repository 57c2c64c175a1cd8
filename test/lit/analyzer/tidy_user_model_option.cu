// The clang-tidy module reads the same user model through the StreamraceModelFile option and
// reports what streamrace-check --model reports.
// RUN: %check_streamrace --tool=tidy %s %t -config="{CheckOptions: {StreamraceModelFile: '%inputs/wrappers.json'}}" -- %mock_cuda
// RUN: %check_streamrace %s %t.cli --model=%inputs/wrappers.json -- %mock_cuda
#include "cuda_runtime.h"

namespace comm {
void all_gather(const float* send, float* recv, size_t count, cudaStream_t stream);
}

void racy(float* shard, float* full, size_t n, cudaStream_t compute, cudaStream_t comm_stream) {
  cudaMemsetAsync(full, 0, n * 4, compute);
  comm::all_gather(shard, full, n, comm_stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'full' is written by all_gather on stream 'comm_stream' while cudaMemsetAsync on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
