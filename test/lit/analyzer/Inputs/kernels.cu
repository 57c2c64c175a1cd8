// Kernels whose summaries kernel_summaries_json.test checks.
#include "cuda_runtime.h"

__device__ int atomicAdd(int* address, int value);

__global__ void axpy(float a, const float* x, float* y) {
  const unsigned i = threadIdx.x;
  y[i] += a * x[i];
}

__global__ void histogram(const int* values, int* bins) {
  atomicAdd(&bins[values[threadIdx.x]], 1);
}

__global__ void zero_rows(float* matrix, unsigned width) {
  float* row = matrix + blockIdx.x * width;
  row[threadIdx.x] = 0.0f;
}

__global__ void scale_guarded(float* data, float factor, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) data[i] *= factor;
}

__global__ void copy_strided(const double* in, double* out, unsigned long n) {
  for (unsigned long i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = in[i + 1];
}
