// A kernel that indexes a pointer parameter only as `p[i]` under a guard `i < n` (a loop or `if`
// condition, or an earlier `if (i >= n) return;`), n an integer parameter, touches n elements
// from the pointer: slices of one allocation given to such kernels are different bytes.
// Without such a guard the kernel may reach the end of the allocation.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void scale_loop(float* data, size_t n) {
  for (size_t i = threadIdx.x; i < n; i += blockDim.x)
    data[i] *= 2.0f;
}

__global__ void scale_early_return(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  data[i] *= 2.0f;
}

__global__ void scale_unguarded(float* data) { data[threadIdx.x] *= 2.0f; }

void halves_on_two_streams(float* data, size_t n, cudaStream_t a, cudaStream_t b) {
  scale_loop<<<1, 256, 0, a>>>(data, n / 2);
  scale_early_return<<<1, 256, 0, b>>>(data + n / 2, n / 2);
}

void overlapping_slices(float* data, size_t n, cudaStream_t a, cudaStream_t b) {
  scale_loop<<<1, 256, 0, a>>>(data, n);
  scale_early_return<<<1, 256, 0, b>>>(data + n / 2, n / 2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'data' is read and written by kernel 'scale_early_return' on stream 'b' while kernel 'scale_loop' on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void unguarded_reaches_the_next_slice(float* data, const float* host, size_t n, cudaStream_t a,
                                      cudaStream_t b) {
  scale_unguarded<<<1, 256, 0, a>>>(data);
  cudaMemcpyAsync(data + n, host, n * sizeof(float), cudaMemcpyHostToDevice, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'data' is written by cudaMemcpyAsync on stream 'b' while kernel 'scale_unguarded' on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

// Chunk c is copied in while the kernels of the earlier chunks may still run: every iteration's
// chunk is its own bytes, however many iterations back.
void chunked_pipeline(float* staging, const float* host, size_t n, int chunks,
                      cudaStream_t copy, cudaStream_t compute) {
  for (int c = 0; c < chunks; ++c) {
    cudaMemcpyAsync(staging + c * n, host + c * n, n * sizeof(float), cudaMemcpyHostToDevice,
                    copy);
    cudaStreamSynchronize(copy);
    scale_loop<<<1, 256, 0, compute>>>(staging + c * n, n);
  }
}

// Windows that move by half their length: each copy writes half of what the last kernel reads.
void overlapping_windows(float* staging, const float* host, size_t n, int chunks,
                         cudaStream_t copy, cudaStream_t compute) {
  for (int c = 0; c < chunks; ++c) {
    cudaMemcpyAsync(staging + c * n, host, 2 * n * sizeof(float), cudaMemcpyHostToDevice, copy);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'staging' is written by cudaMemcpyAsync on stream 'copy' while kernel 'scale_loop' on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    cudaStreamSynchronize(copy);
    scale_loop<<<1, 256, 0, compute>>>(staging + c * n, 2 * n);
  }
}
