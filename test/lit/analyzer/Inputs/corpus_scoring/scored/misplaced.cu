// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Scorer fixture: the marker names the writer's line, not the reader's where the finding goes, and
// the twin synchronizes the wrong stream, so it still races.
#include "cuda_runtime.h"

void copy_after_set(float* buf, float* dst, cudaStream_t a, cudaStream_t b) {
  // expect: streamrace-unsynchronized-cross-stream
  cudaMemsetAsync(buf, 0, 64, a);
#ifdef FIXED
  cudaStreamSynchronize(b);
#endif
  cudaMemcpyAsync(dst, buf, 64, cudaMemcpyDeviceToDevice, b);
}
