// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Accesses are byte ranges of their buffer: offset and length as polynomials over the program's
// values. Halo rows and chunks of one allocation are different bytes; ranges that may share a
// byte (a row and the whole buffer a kernel takes, p and p + 1 of one length) are checked.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void relax(float* grid) { grid[threadIdx.x] = 0.0f; }

// Jacobi's periodic boundary: the top halo (row 0) gets the last interior row, the bottom halo
// (row iy_end) the first, each on its own stream. No row is touched twice.
void halo_rows(float* a, int nx, int iy_start, int iy_end, cudaStream_t top, cudaStream_t bottom) {
  cudaMemcpyAsync(a, a + (iy_end - 1) * nx, nx * sizeof(float), cudaMemcpyDeviceToDevice, top);
  cudaMemcpyAsync(a + iy_end * nx, a + iy_start * nx, nx * sizeof(float),
                  cudaMemcpyDeviceToDevice, bottom);
}

// Rows iy_end - 1 and iy_end are adjacent: the first ends where the second starts.
void adjacent_rows(float* a, float* out, int nx, int iy_end, cudaStream_t s1, cudaStream_t s2) {
  cudaMemsetAsync(a + (iy_end - 1) * nx, 0, nx * sizeof(float), s1);
  cudaMemcpyAsync(out, a + iy_end * nx, nx * sizeof(float), cudaMemcpyDeviceToDevice, s2);
}

// Chunks of n/4 elements, each copied on its own stream.
void quarter_chunks(float* d, const float* h, int n, int i, int j, cudaStream_t s1,
                    cudaStream_t s2) {
  cudaMemcpyAsync(d + i * n / 4, h, n / 4 * sizeof(float), cudaMemcpyHostToDevice, s1);
  cudaMemcpyAsync(d + j * n / 4, h, n / 4 * sizeof(float), cudaMemcpyHostToDevice, s2);
}

// A kernel given the buffer may touch any row of it.
void kernel_and_row(float* a, float* out, int nx, int iy_end, cudaStream_t compute,
                    cudaStream_t push) {
  relax<<<1, 32, 0, compute>>>(a);
  cudaMemcpyAsync(out, a + (iy_end - 1) * nx, nx * sizeof(float), cudaMemcpyDeviceToDevice, push);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'a' is read by cudaMemcpyAsync on stream 'push' while kernel 'relax' on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

// Windows one element apart overlap in all but one element.
void shifted_window(float* a, float* out, int n, cudaStream_t s1, cudaStream_t s2) {
  cudaMemsetAsync(a, 0, n * sizeof(float), s1);
  cudaMemcpyAsync(out, a + 1, n * sizeof(float), cudaMemcpyDeviceToDevice, s2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'a' is read by cudaMemcpyAsync on stream 's2' while cudaMemsetAsync on stream 's1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

// A pointer bound to a row keeps its offset: the same row through a local is the same bytes.
void row_through_a_local(float* a, float* out, int nx, int row, cudaStream_t s1,
                         cudaStream_t s2) {
  float* line = a + row * nx;
  cudaMemsetAsync(line, 0, nx * sizeof(float), s1);
  cudaMemcpyAsync(out, a + row * nx, nx * sizeof(float), cudaMemcpyDeviceToDevice, s2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'a' is read by cudaMemcpyAsync on stream 's2' while cudaMemsetAsync on stream 's1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

// A helper given a row: its copy is of that row, in the caller's terms.
static void push_row(float* grid, int row, int nx, float* out, cudaStream_t s) {
  cudaMemcpyAsync(out, grid + row * nx, nx * sizeof(float), cudaMemcpyDeviceToDevice, s);
}

void helper_rows(float* a, float* out, int nx, int iy_end, cudaStream_t s1, cudaStream_t s2) {
  cudaMemsetAsync(a + (iy_end - 1) * nx, 0, nx * sizeof(float), s1);
  push_row(a, iy_end, nx, out, s2);
  push_row(a, iy_end - 1, nx, out, s2);
  // CHECK-MESSAGES: :[[@LINE-7]]:3: warning: 'a' is read by cudaMemcpyAsync on stream 's2' while cudaMemsetAsync on stream 's1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: 'push_row' is called here
}
