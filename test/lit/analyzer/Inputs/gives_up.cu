// What the analysis gives up on, each announced where it happens (analysis_remarks.test).
#include <cuda_runtime.h>

void fifth(float* d, size_t bytes, cudaStream_t s) { cudaMemsetAsync(d, 0, bytes, s); }
void fourth(float* d, size_t bytes, cudaStream_t s) { fifth(d, bytes, s); }
void third(float* d, size_t bytes, cudaStream_t s) { fourth(d, bytes, s); }
void second(float* d, size_t bytes, cudaStream_t s) { third(d, bytes, s); }
void first(float* d, size_t bytes, cudaStream_t s) { second(d, bytes, s); }

void halves(float* d, size_t bytes, cudaStream_t s) {
  if (bytes < 1024) {
    cudaMemsetAsync(d, 0, bytes, s);
    return;
  }
  halves(d, bytes / 2, s);
}

void deep_and_deferred(float* d, size_t bytes, cudaStream_t a, cudaStream_t b) {
  first(d, bytes, a);
  halves(d, bytes, a);
#pragma omp task
  cudaMemsetAsync(d, 0, bytes, a);
  // No remark: the body of a parallel region runs where it stands.
#pragma omp parallel
  cudaStreamSynchronize(b);
}
