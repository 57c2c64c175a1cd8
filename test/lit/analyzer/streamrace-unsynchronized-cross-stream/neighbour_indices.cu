// A local index variable that names a loop counter's neighbour (`top = dev - 1`, or in a ring
// `dev > 0 ? dev - 1 : n - 1` and `(dev + 1) % n` in a loop up to n) keeps that relation after
// it dies: the halo row one iteration writes into its neighbour's buffer is the same element, and
// a different row, as the boundary row the neighbour's own iteration reads. The halo exchange of
// a multi-GPU Jacobi solver is therefore no race; writing the row the neighbour reads is. An index
// that cycles (`b % 2`) is no neighbour: reusing its buffer is still reported.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

void halo_exchange(float* a[], const int iy_start[], const int iy_end[], int nx, int devices,
                   cudaStream_t push_top[], cudaStream_t push_bottom[]) {
  for (int dev = 0; dev < devices; ++dev) {
    const int top = dev > 0 ? dev - 1 : devices - 1;
    const int bottom = (dev + 1) % devices;
    cudaMemcpyAsync(a[top] + iy_end[top] * nx, a[dev] + iy_start[dev] * nx, nx * sizeof(float),
                    cudaMemcpyDeviceToDevice, push_top[dev]);
    cudaMemcpyAsync(a[bottom], a[dev] + (iy_end[dev] - 1) * nx, nx * sizeof(float),
                    cudaMemcpyDeviceToDevice, push_bottom[dev]);
  }
}

void halo_overwrites_boundary_row(float* a[], const int iy_end[], int nx, int devices,
                                  cudaStream_t push_top[], cudaStream_t push_bottom[]) {
  for (int dev = 0; dev < devices; ++dev) {
    const int top = dev > 0 ? dev - 1 : devices - 1;
    cudaMemcpyAsync(a[top] + (iy_end[top] - 1) * nx, a[dev] + nx, nx * sizeof(float),
                    cudaMemcpyDeviceToDevice, push_top[dev]);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: 'a[dev-1]' is written by cudaMemcpyAsync on stream 'push_top[*]' while cudaMemcpyAsync on stream 'push_bottom[*]' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    cudaMemcpyAsync(a[dev + 1], a[dev] + (iy_end[dev] - 1) * nx, nx * sizeof(float),
                    cudaMemcpyDeviceToDevice, push_bottom[dev]);
  }
}

void cycling_slot(float* buffers[], const float* batches[], int count, size_t bytes,
                  cudaStream_t copy, cudaStream_t compute) {
  for (int b = 0; b < count; ++b) {
    const int slot = b % 2;
    cudaMemcpyAsync(buffers[slot], batches[b], bytes, cudaMemcpyHostToDevice, copy);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buffers[slot]' is written by cudaMemcpyAsync on stream 'copy' while cudaMemcpyAsync on stream 'compute' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    cudaStreamSynchronize(copy);
    cudaMemcpyAsync(buffers[slot] + 1, buffers[slot], 4, cudaMemcpyDeviceToDevice, compute);
  }
}
