// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A kernel spinning on a `volatile` flag until the host sets it is a handshake: the host's writes
// of the flag are how the program releases the kernel, not a race. What else the host touches
// while such a kernel holds the stream is still checked, but the fix-it never makes the host wait
// for that stream: the kernel would wait for a flag the host has not set yet.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void delay(volatile int* flag) {
  while (!*flag) {
  }
}

__global__ void fill(float* out) { out[threadIdx.x] = 1.0f; }

// p2pBandwidthLatencyTest's pattern: block the stream, queue the work, release it.
void queue_then_release(volatile int* flag, float* device, float* result, cudaStream_t s) {
  cudaHostAlloc((void**)&flag, sizeof(int), cudaHostAllocPortable);
  *flag = 0;
  delay<<<1, 1, 0, s>>>(flag);
  cudaMemcpyAsync(device, result, 64, cudaMemcpyHostToDevice, s);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
}

void host_write_while_blocked(volatile int* flag, float* pinned, float* device, cudaStream_t s) {
  cudaMallocHost((void**)&pinned, 64);
  delay<<<1, 1, 0, s>>>(flag);
  cudaMemcpyAsync(pinned, device, 64, cudaMemcpyDeviceToHost, s);
  pinned[0] = 2.0f;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the host writes 'pinned' while cudaMemcpyAsync on stream 's' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix-it: a kernel on stream 's' waits for a flag, and synchronizing with the stream before the flag is set would never return
  // CHECK-FIXES: cudaMemcpyAsync(pinned, device, 64, cudaMemcpyDeviceToHost, s);
  // CHECK-FIXES-NEXT: pinned[0] = 2.0f;
  *flag = 1;
}

void host_write_without_handshake(float* pinned, float* device, cudaStream_t s) {
  cudaMallocHost((void**)&pinned, 64);
  fill<<<1, 32, 0, s>>>(device);
  cudaMemcpyAsync(pinned, device, 64, cudaMemcpyDeviceToHost, s);
  pinned[0] = 2.0f;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the host writes 'pinned' while cudaMemcpyAsync on stream 's' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
  // CHECK-FIXES: cudaMemcpyAsync(pinned, device, 64, cudaMemcpyDeviceToHost, s);
  // CHECK-FIXES-NEXT: cudaStreamSynchronize(s);
  // CHECK-FIXES-NEXT: pinned[0] = 2.0f;
}
