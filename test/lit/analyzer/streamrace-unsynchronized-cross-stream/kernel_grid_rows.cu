// A kernel that indexes a grid as `p[row * width + col]`, the row counting up from a parameter at
// the thread's y index and guarded below another, the column kept inside its row by its guard,
// touches only those rows (and the neighbour rows a stencil reads). Boundary rows and the
// interior of one grid, written from three streams, are different bytes; overlapping row ranges
// still race (multi-gpu-programming-models' overlapping Jacobi solver).
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void relax(float* next, const float* grid, int first_row, int end_row, int width) {
  int row = blockIdx.y * blockDim.y + threadIdx.y + first_row;
  int col = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (row < end_row && col < (width - 1)) {
    next[row * width + col] = 0.25f * (grid[row * width + col + 1] + grid[row * width + col - 1] +
                                       grid[(row + 1) * width + col] + grid[(row - 1) * width + col]);
  }
}

void ordered_boundaries_and_interior(float* next, const float* grid, int rows, int width,
                                     cudaStream_t top, cudaStream_t interior,
                                     cudaStream_t bottom) {
  dim3 block(32, 8);
  relax<<<dim3(width / 32, 1), block, 0, top>>>(next, grid, 1, 2, width);
  relax<<<dim3(width / 32, rows / 8), block, 0, interior>>>(next, grid, 2, rows - 2, width);
  relax<<<dim3(width / 32, 1), block, 0, bottom>>>(next, grid, rows - 2, rows - 1, width);
}

void racy_overlapping_rows(float* next, const float* grid, int rows, int width, cudaStream_t top,
                           cudaStream_t interior) {
  dim3 block(32, 8);
  relax<<<dim3(width / 32, 1), block, 0, top>>>(next, grid, 1, 3, width);
  relax<<<dim3(width / 32, rows / 8), block, 0, interior>>>(next, grid, 2, rows - 2, width);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'next' is written by kernel 'relax' on stream 'interior' while kernel 'relax' on stream 'top' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: kernel 'relax' writes 'next' on stream 'top' here
}

// The stencil reads the rows next to its own: with the grids swapped, the first kernel writes
// row 1 of `grid`, which the second reads from row 2, and reads row 2 of `next`, which the second
// writes.
void racy_neighbour_row_read(float* grid, float* next, int rows, int width, cudaStream_t top,
                             cudaStream_t interior) {
  dim3 block(32, 8);
  relax<<<dim3(width / 32, 1), block, 0, top>>>(grid, next, 1, 2, width);
  relax<<<dim3(width / 32, rows / 8), block, 0, interior>>>(next, grid, 2, rows - 2, width);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'next' is written by kernel 'relax' on stream 'interior' while kernel 'relax' on stream 'top' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: kernel 'relax' reads 'next' on stream 'top' here
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: 'grid' is read by kernel 'relax' on stream 'interior' while kernel 'relax' on stream 'top' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: kernel 'relax' writes 'grid' on stream 'top' here
}
