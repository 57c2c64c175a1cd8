// Work enqueued through `std::function` callbacks (PyTorch DDP's gradient hooks): a call through
// a `std::function` runs the lambdas the translation unit stores in that type, where the lambda
// was made (its captures are that function's variables).
// RUN: %check_streamrace %s %t -- %real_cuda -std=c++17
#include <cuda_runtime.h>

#include <functional>
#include <vector>

__global__ void weight_grad(float* grad) { grad[threadIdx.x] = 1.0f; }

using GradHook = std::function<void(float* grad)>;

void backward(float* grad, const std::vector<GradHook>& hooks, cudaStream_t compute) {
  weight_grad<<<1, 32, 0, compute>>>(grad);
  for (const GradHook& hook : hooks)
    hook(grad);
}

void hook_without_wait(float* grad, cudaStream_t compute, cudaStream_t comm) {
  std::vector<GradHook> hooks;
  hooks.push_back([&](float* g) { cudaMemsetAsync(g, 0, 4, comm); });
  // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: 'grad' is written by cudaMemsetAsync on stream 'comm' while kernel 'weight_grad' on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-7]]:5: note: the lambda is called here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: 'backward' is called here
  backward(grad, hooks, compute);
}

void hook_waits_for_the_gradient(float* grad, cudaStream_t compute, cudaStream_t comm) {
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  std::vector<GradHook> hooks;
  hooks.push_back([&](float* g) {
    cudaEventRecord(ready, compute);
    cudaStreamWaitEvent(comm, ready, 0);
    cudaMemsetAsync(g, 0, 4, comm);
  });
  backward(grad, hooks, compute);
}

void hook_on_the_compute_stream(float* grad, cudaStream_t compute) {
  GradHook hook = [&](float* g) { cudaMemsetAsync(g, 0, 4, compute); };
  weight_grad<<<1, 32, 0, compute>>>(grad);
  hook(grad);
}
