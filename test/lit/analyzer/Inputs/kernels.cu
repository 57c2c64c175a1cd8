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

struct Span {
  float* data;
  int count;
};
struct Pair {
  Span from;
  Span to;
};
struct Pointers {
  float* items[2];
};
struct Sizes {
  int rows;
  int columns;
};

__device__ void consume(Pair pair);

// Used through its members only: each pointer member has its own mode and extent (bounded by a
// count member of the same struct).
__global__ void copy_pair(Pair pair) {
  const int i = threadIdx.x;
  if (i < pair.to.count) pair.to.data[i] = pair.from.data[i];
}

// Used whole: what the callee does with its pointers is unknown.
__global__ void pass_pair(Pair pair) {
  consume(pair);
}

// Pointers in an array member: no member path names one alone.
__global__ void first_item(Pointers pointers) {
  pointers.items[0][threadIdx.x] = 0.0f;
}

// No pointers at all.
__global__ void fill(float* out, Sizes sizes) {
  out[threadIdx.x] = static_cast<float>(sizes.rows * sizes.columns);
}
