// With -fopenmp, the code inside OpenMP directives is host code like any other: Clang keeps a
// region's body out of the region's children, and the analysis used to skip every function that
// had one. A region's body is analysed as one thread's run, where it stands; the end of the region
// and `omp barrier` order host threads only, which the one-thread run already is.
// RUN: %check_streamrace %s %t -- %real_cuda -fopenmp
#include <cuda_runtime.h>

__global__ void fill(float* p) { p[threadIdx.x] = 1.0f; }

void racy_inside_parallel(float* d, const float* h, size_t bytes, cudaStream_t copy,
                          cudaStream_t compute) {
#pragma omp parallel num_threads(2)
  {
    cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, copy);
    fill<<<1, 32, 0, compute>>>(d);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'd' is written by kernel 'fill' on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: cudaMemcpyAsync writes 'd' on stream 'copy' here
  }
}

void ordered_inside_parallel(float* d, const float* h, size_t bytes, cudaStream_t copy,
                             cudaStream_t compute, cudaEvent_t copied) {
#pragma omp parallel num_threads(2)
  {
    cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, copy);
    cudaEventRecord(copied, copy);
    cudaStreamWaitEvent(compute, copied, 0);
    fill<<<1, 32, 0, compute>>>(d);
  }
}

// A `parallel for` is a loop: iteration i+1's copy races with iteration i's kernel.
void racy_parallel_for(float* d, const float* h, size_t bytes, int steps, cudaStream_t copy,
                       cudaStream_t compute) {
#pragma omp parallel for
  for (int step = 0; step < steps; ++step) {
    cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, copy);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'd' is written by cudaMemcpyAsync on stream 'copy' while kernel 'fill' on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE+2]]:5: note: kernel 'fill' writes 'd' on stream 'compute' here
    cudaStreamSynchronize(copy);
    fill<<<1, 32, 0, compute>>>(d);
  }
}

void ordered_parallel_for(float* d, const float* h, size_t bytes, int steps, cudaStream_t copy,
                          cudaStream_t compute) {
#pragma omp parallel for
  for (int step = 0; step < steps; ++step) {
    cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, copy);
    cudaStreamSynchronize(copy);
    fill<<<1, 32, 0, compute>>>(d);
    cudaStreamSynchronize(compute);
  }
}

// Work a region leaves pending is still pending after it, until a synchronization orders it.
void racy_after_region(float* d, const float* h, size_t bytes, cudaStream_t copy,
                       cudaStream_t compute) {
#pragma omp parallel
  {
#pragma omp single
    cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, copy);
#pragma omp barrier
  }
  fill<<<1, 32, 0, compute>>>(d);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'd' is written by kernel 'fill' on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-5]]:5: note: cudaMemcpyAsync writes 'd' on stream 'copy' here
}

void ordered_after_region(float* d, const float* h, size_t bytes, cudaStream_t copy,
                          cudaStream_t compute) {
#pragma omp parallel
  {
#pragma omp single
    {
      cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, copy);
      cudaStreamSynchronize(copy);
    }
  }
  fill<<<1, 32, 0, compute>>>(d);
}
