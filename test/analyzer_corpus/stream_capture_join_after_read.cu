// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CUDA graph capture with fork/join through events: the origin stream reads the branch's output
// before the join, so in the instantiated graph the two kernel nodes are unordered.
// Fixed: the join (record on the branch, wait on the origin) comes before the reading kernel.
#include <cuda_runtime.h>

__global__ void q_proj(const float* x, float* q) {
  q[threadIdx.x] = x[threadIdx.x] * 3.0f;
}
__global__ void k_proj(const float* x, float* k) {
  k[threadIdx.x] = x[threadIdx.x] * 2.0f;
}
__global__ void qk_dot(const float* q, const float* k, float* s) {
  s[threadIdx.x] = q[threadIdx.x] * k[threadIdx.x];
}

cudaGraphExec_t capture_attention(const float* x, float* q, float* k, float* scores,
                                  cudaStream_t origin, cudaStream_t branch) {
  cudaEvent_t fork, join;
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  cudaGraph_t graph;
  cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal);
  cudaEventRecord(fork, origin);
  cudaStreamWaitEvent(branch, fork, 0);
  k_proj<<<1, 64, 0, branch>>>(x, k);
  q_proj<<<1, 64, 0, origin>>>(x, q);
#ifdef FIXED
  cudaEventRecord(join, branch);
  cudaStreamWaitEvent(origin, join, 0);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  qk_dot<<<1, 64, 0, origin>>>(q, k, scores);
#ifndef FIXED
  cudaEventRecord(join, branch);
  cudaStreamWaitEvent(origin, join, 0);
#endif
  cudaStreamEndCapture(origin, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  return exec;
}
