// A loop that synchronizes streams or devices one by one may run zero times, but then so did an
// earlier loop with the same first test, and its work does not exist: `for (d = 0; d < n; ++d)`
// enqueues on n streams, a later loop over the same n synchronizes them. Work made before the
// first loop, a loop over another bound, or a bound changed in between leave the zero-trip path
// unordered: reported. Loops with constant bounds always run.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void consume(float* inout) { inout[threadIdx.x] *= 2.0f; }

void same_bound(float* halo[], int n, cudaStream_t push[], cudaStream_t compute) {
  for (int d = 0; d < n; ++d)
    cudaMemcpyAsync(halo[d], halo[d] + 64, 256, cudaMemcpyDeviceToDevice, push[d]);
  for (int d = 0; d < n; ++d)
    cudaStreamSynchronize(push[d]);
  consume<<<1, 64, 0, compute>>>(halo[0]);
}

void devices_counting_down(float* halo[], int devices, cudaStream_t push[],
                           cudaStream_t compute) {
  for (int warmup = 0; warmup < 4; ++warmup) {
    for (int d = 0; d < devices; ++d) {
      cudaSetDevice(d);
      cudaMemcpyAsync(halo[d], halo[d] + 64, 256, cudaMemcpyDeviceToDevice, push[d]);
    }
    for (int d = devices - 1; d >= 0; --d) {
      cudaSetDevice(d);
      cudaDeviceSynchronize();
    }
  }
  consume<<<1, 64, 0, compute>>>(halo[0]);
}

void constant_bound(float* halo, cudaStream_t push[], cudaStream_t compute) {
  cudaMemcpyAsync(halo, halo + 64, 256, cudaMemcpyDeviceToDevice, push[0]);
  for (int d = 0; d < 2; ++d)
    cudaStreamSynchronize(push[d]);
  consume<<<1, 64, 0, compute>>>(halo);
}

void work_before_the_loop(float* halo, int n, cudaStream_t push[], cudaStream_t compute) {
  cudaMemcpyAsync(halo, halo + 64, 256, cudaMemcpyDeviceToDevice, push[0]);
  for (int d = 0; d < n; ++d)
    cudaStreamSynchronize(push[d]);
  consume<<<1, 64, 0, compute>>>(halo);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'halo' is read and written by kernel 'consume' on stream 'compute' while cudaMemcpyAsync on stream 'push[0]' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void another_bound(float* halo[], int n, int m, cudaStream_t push[], cudaStream_t compute) {
  for (int d = 0; d < n; ++d)
    cudaMemcpyAsync(halo[d], halo[d] + 64, 256, cudaMemcpyDeviceToDevice, push[d]);
  for (int d = 0; d < m; ++d)
    cudaStreamSynchronize(push[d]);
  consume<<<1, 64, 0, compute>>>(halo[0]);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'halo[0]' is read and written by kernel 'consume' on stream 'compute' while cudaMemcpyAsync on stream 'push[*]' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void bound_changed_in_between(float* halo[], int n, cudaStream_t push[], cudaStream_t compute) {
  for (int d = 0; d < n; ++d)
    cudaMemcpyAsync(halo[d], halo[d] + 64, 256, cudaMemcpyDeviceToDevice, push[d]);
  --n;
  for (int d = 0; d < n; ++d)
    cudaStreamSynchronize(push[d]);
  consume<<<1, 64, 0, compute>>>(halo[0]);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'halo[0]' is read and written by kernel 'consume' on stream 'compute' while cudaMemcpyAsync on stream 'push[*]' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
