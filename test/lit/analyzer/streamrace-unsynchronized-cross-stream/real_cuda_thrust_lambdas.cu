// Against the real CUDA 13 headers with thrust, cub and the standard library: heavy templates
// and lambdas parse and analyze without a crash, and a race through lambdas is still found.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <functional>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <vector>

template <class F> void on_stream(cudaStream_t stream, F&& work) { work(stream); }

void per_stream_copies(std::vector<float*>& buffers, std::vector<cudaStream_t>& streams,
                       const float* host) {
  thrust::device_vector<float> keys(128);
  thrust::sort(keys.begin(), keys.end());
  for (size_t i = 0; i < buffers.size(); ++i)
    cudaMemcpyAsync(buffers[i], host, 4, cudaMemcpyHostToDevice, streams[i]);
}

void lambda_race(float* staging, const float* src, cudaStream_t copy, cudaStream_t consume) {
  on_stream(copy, [&](cudaStream_t s) {
    cudaMemcpyAsync(staging, src, 64, cudaMemcpyDeviceToDevice, s);
  });
  // Through std::function the lambda it holds runs in place (callable_targets.h).
  std::function<void()> held = [&] { cudaMemsetAsync(staging, 0, 64, consume); };
  held();
  // CHECK-MESSAGES: :[[@LINE-2]]:38: warning: 'staging' is written by cudaMemsetAsync on stream 'consume' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: the lambda is called here
  // The same producer and consumer stream again: reported once, at the first consumer.
  auto clear = [&] { cudaMemsetAsync(staging, 0, 64, consume); };
  clear();
}
