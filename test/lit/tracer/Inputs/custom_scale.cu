// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A custom CUDA kernel as a PyTorch job brings one (a C++ extension, or a library it loads with
// ctypes, as the torch test does): launched outside any aten operator, so the tracer has only the
// kernel's parameters to go by.
#include <cuda_runtime.h>

__global__ void scale_in_place(float* data, int count, float factor) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) data[i] *= factor;
}

extern "C" int launch_scale(float* data, int count, float factor, cudaStream_t stream) {
  scale_in_place<<<(count + 255) / 256, 256, 0, stream>>>(data, count, factor);
  return static_cast<int>(cudaGetLastError());
}
