// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Scorer fixture: the race is reported on the marked line; the twin synchronizes the writer.
#include "cuda_runtime.h"

void copy_after_set(float* buf, float* dst, cudaStream_t a, cudaStream_t b) {
  cudaMemsetAsync(buf, 0, 64, a);
#ifdef FIXED
  cudaStreamSynchronize(a);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  cudaMemcpyAsync(dst, buf, 64, cudaMemcpyDeviceToDevice, b);
}
