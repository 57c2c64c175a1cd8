// A small racy file for the CLI tests (formats, exit codes, multiple files).
#include "cuda_runtime.h"

void racy(float* buf, float* dst, cudaStream_t a, cudaStream_t b) {
  cudaMemsetAsync(buf, 0, 64, a);
  cudaMemcpyAsync(dst, buf, 64, cudaMemcpyDeviceToDevice, b);
}
