// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Scorer fixture: a marker followed by a preprocessor line does not say which statement it marks.
#include "cuda_runtime.h"

void copy_after_set(float* buf, float* dst, cudaStream_t a, cudaStream_t b) {
  cudaMemsetAsync(buf, 0, 64, a);
  // expect: streamrace-unsynchronized-cross-stream
#ifdef FIXED
  cudaStreamSynchronize(a);
#endif
  cudaMemcpyAsync(dst, buf, 64, cudaMemcpyDeviceToDevice, b);
}
