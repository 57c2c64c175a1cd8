// Two streams only reading the same buffer do not race; the write into distinct buffers neither.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "nccl.h"

void concurrent_readers(const float* weights, float* a, float* b, size_t n, cudaStream_t s1,
                        cudaStream_t s2, ncclComm_t c) {
  cudaMemcpyAsync(a, weights, n, cudaMemcpyDeviceToDevice, s1);
  ncclBroadcast(weights, b, n, ncclFloat, 0, c, s2);
}
