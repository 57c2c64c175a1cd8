// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Error paths that end the program (exit, abort, an error helper that always ends in one, with
// or without [[noreturn]]) are no path to what follows: only the paths that return carry their
// pending work on. An error path that returns does.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"
#include "stdlib.h"

__global__ void produce(float* out) { out[threadIdx.x] = 1.0f; }

static void fail(const char* what) {
  printf("fatal: %s\n", what);
  exit(1);
}

static void warn(const char* what) { printf("warning: %s\n", what); }

static void finish_or_abort(bool ok, cudaStream_t s) {
  if (!ok) {
    printf("not finished\n");
    abort();
  }
  cudaStreamSynchronize(s);
}

static void finish_or_return(bool ok, cudaStream_t s) {
  if (!ok) {
    printf("not finished\n");
    return;
  }
  cudaStreamSynchronize(s);
}

void helper_synchronizes_unless_it_aborts(float* buf, float* out, bool ok, cudaStream_t s1,
                                          cudaStream_t s2) {
  produce<<<1, 32, 0, s1>>>(buf);
  finish_or_abort(ok, s1);
  cudaMemcpyAsync(out, buf, 128, cudaMemcpyDeviceToDevice, s2);
}

void helper_may_return_unsynchronized(float* buf, float* out, bool ok, cudaStream_t s1,
                                      cudaStream_t s2) {
  produce<<<1, 32, 0, s1>>>(buf);
  finish_or_return(ok, s1);
  cudaMemcpyAsync(out, buf, 128, cudaMemcpyDeviceToDevice, s2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 's2' while kernel 'produce' on stream 's1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void error_helper_never_returns(float* buf, float* out, bool ok, cudaStream_t s1,
                                cudaStream_t s2) {
  produce<<<1, 32, 0, s1>>>(buf);
  if (ok)
    cudaStreamSynchronize(s1);
  else
    fail("no sync");
  cudaMemcpyAsync(out, buf, 128, cudaMemcpyDeviceToDevice, s2);
}

void error_helper_returns(float* buf, float* out, bool ok, cudaStream_t s1, cudaStream_t s2) {
  produce<<<1, 32, 0, s1>>>(buf);
  if (ok)
    cudaStreamSynchronize(s1);
  else
    warn("no sync");
  cudaMemcpyAsync(out, buf, 128, cudaMemcpyDeviceToDevice, s2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 's2' while kernel 'produce' on stream 's1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
