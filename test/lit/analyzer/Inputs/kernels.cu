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

__device__ void store_total(long* total, long value) {
  *total = value;
}

// Constant indices reach their largest index; a null test touches nothing; a device function's
// use of its parameter is the caller's use.
__global__ void totals(const float* weights, long* total, int* status) {
  if (status) status[0] = static_cast<int>(weights[3]);
  store_total(total, static_cast<long>(weights[1]));
}

// One element per thread: the grid index alone, through a local or directly.
__global__ void stamp(int* out, float* copy) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = static_cast<int>(i);
  copy[threadIdx.x + blockDim.x * blockIdx.x] = 1.0f;
}

// A grid index that is changed afterwards bounds nothing.
__global__ void stride(int* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  i += 7;
  out[i] = 0;
}
