// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A helper called twice takes the same way both times where its branch tests what did not change
// in between: a global compared with a constant (`mode == kPeerKernel`), and a parameter given
// the same caller variable. `if (a && b) ... else ...` knows, in its else, that not both hold,
// so the first call's else-work is not paired with the second call's then-work (cuda-samples'
// p2pBandwidthLatencyTest copies by kernel or by cudaMemcpyPeerAsync, the same way both times).
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

enum Mechanism { kCopyEngine, kPeerKernel };
Mechanism mode = kCopyEngine;
void reconfigure();
int can_access_peer(int device);

__global__ void fill(float* out) { out[threadIdx.x] = 1.0f; }

// The kernel writes `by_kernel`, the copy writes `by_copy`.
void fill_either_way(float* by_kernel, float* by_copy, const float* source, bool access,
                     cudaStream_t stream) {
  if (mode == kPeerKernel && access) {
    fill<<<1, 32, 0, stream>>>(by_kernel);
  } else {
    cudaMemcpyAsync(by_copy, source, 128, cudaMemcpyDeviceToDevice, stream);
  }
}

// Crossed buffers: only a kernel in one call and a copy in the other would meet, and both calls
// take the same way: silent.
void same_way_twice(float* x, float* y, const float* source, int device) {
  const int access = can_access_peer(device);
  cudaStream_t first, second;
  cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking);
  fill_either_way(x, y, source, access, first);
  fill_either_way(y, x, source, access, second);
  cudaStreamSynchronize(first);
  cudaStreamSynchronize(second);
}

// Two different variables decide the two calls: one may copy into `x` while the other's kernel
// fills it.
void two_decisions(float* x, float* y, const float* source, bool first_access,
                   bool second_access) {
  cudaStream_t first, second;
  cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking);
  fill_either_way(x, y, source, first_access, first);
  fill_either_way(y, x, source, second_access, second);
  // CHECK-MESSAGES: :[[@LINE-28]]:5: warning: 'y' is written by kernel 'fill' on stream 'second' while cudaMemcpyAsync on stream 'first' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: 'fill_either_way' is called here
  // CHECK-MESSAGES: :[[@LINE-28]]:5: note: cudaMemcpyAsync writes 'y' on stream 'first' here
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: 'fill_either_way' is called here
  // CHECK-MESSAGES: :[[@LINE-6]]:54: note: an event recorded on stream 'first' here, and waited on before the later access, would order the two
  cudaStreamSynchronize(first);
  cudaStreamSynchronize(second);
}

// A function the analysis does not see may change the global between the calls.
void reconfigured_in_between(float* left, float* right, const float* source, bool access) {
  cudaStream_t one, two;
  cudaStreamCreateWithFlags(&one, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&two, cudaStreamNonBlocking);
  fill_either_way(left, right, source, access, one);
  reconfigure();
  fill_either_way(right, left, source, access, two);
  // CHECK-MESSAGES: :[[@LINE-45]]:5: warning: 'right' is written by kernel 'fill' on stream 'two' while cudaMemcpyAsync on stream 'one' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: 'fill_either_way' is called here
  // CHECK-MESSAGES: :[[@LINE-45]]:5: note: cudaMemcpyAsync writes 'right' on stream 'one' here
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: 'fill_either_way' is called here
  // CHECK-MESSAGES: :[[@LINE-7]]:53: note: an event recorded on stream 'one' here, and waited on before the later access, would order the two
  cudaStreamSynchronize(one);
  cudaStreamSynchronize(two);
}

// So may an assignment.
void assigned_in_between(float* up, float* down, const float* source, bool access) {
  cudaStream_t one, two;
  cudaStreamCreateWithFlags(&one, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&two, cudaStreamNonBlocking);
  fill_either_way(up, down, source, access, one);
  mode = kCopyEngine;
  fill_either_way(down, up, source, access, two);
  // CHECK-MESSAGES: :[[@LINE-62]]:5: warning: 'down' is written by kernel 'fill' on stream 'two' while cudaMemcpyAsync on stream 'one' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: 'fill_either_way' is called here
  // CHECK-MESSAGES: :[[@LINE-62]]:5: note: cudaMemcpyAsync writes 'down' on stream 'one' here
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: 'fill_either_way' is called here
  // CHECK-MESSAGES: :[[@LINE-7]]:50: note: an event recorded on stream 'one' here, and waited on before the later access, would order the two
  cudaStreamSynchronize(one);
  cudaStreamSynchronize(two);
}
