#include "helpers.h"

void broken_fill(float* dst, const float* src, size_t n, cudaStream_t stream) {
  cudaMemcpyAsync(dst, src, n * 4, cudaMemcpyDeviceToDevice, stream) // no semicolon
}
