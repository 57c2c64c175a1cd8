// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Single-process multi-GPU (p2pBandwidthLatencyTest / simpleP2P style): device 1's stream pulls the
// halo device 0's kernel is still writing, with no event between the two devices' streams.
// Fixed: device 1's stream waits for an event recorded on device 0's stream after the kernel.
#include <cuda_runtime.h>

__global__ void stencil(const float* in, float* out) {
  out[threadIdx.x] = 0.5f * (in[threadIdx.x] + in[threadIdx.x + 1]);
}

void exchange_halo(const float* in0, float* out0, float* halo1, size_t halo_bytes) {
  cudaStream_t s0, s1;
  cudaSetDevice(0);
  cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking);
  cudaSetDevice(1);
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);

  cudaSetDevice(0);
  stencil<<<1, 255, 0, s0>>>(in0, out0);
#ifdef FIXED
  cudaEvent_t computed;
  cudaEventCreateWithFlags(&computed, cudaEventDisableTiming);
  cudaEventRecord(computed, s0);
#endif
  cudaSetDevice(1);
#ifdef FIXED
  cudaStreamWaitEvent(s1, computed, 0);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  cudaMemcpyPeerAsync(halo1, 1, out0, 0, halo_bytes, s1);
  cudaStreamSynchronize(s1);
}
