// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// PyTorch DDP gradient hooks: backward calls a std::function hook per layer that all-reduces the
// layer's gradient on the comm stream, without waiting for the compute kernel that wrote it.
// Fixed: the hook records an event on the compute stream and the comm stream waits for it.
#include <cuda_runtime.h>
#include <nccl.h>

#include <functional>
#include <vector>

__global__ void weight_grad(const float* activations, float* grad) {
  grad[threadIdx.x] = activations[threadIdx.x] * 2.0f;
}

using GradHook = std::function<void(float* grad, size_t elems)>;

void backward(const float* activations, float* const* grads, size_t elems, int layers,
              const std::vector<GradHook>& hooks, cudaStream_t compute) {
  for (int layer = layers - 1; layer >= 0; --layer) {
    weight_grad<<<1, 256, 0, compute>>>(activations, grads[layer]);
    for (const GradHook& hook : hooks)
      hook(grads[layer], elems);
  }
}

void train_with_ddp(const float* activations, float* const* grads, size_t elems, int layers,
                    ncclComm_t comm, cudaStream_t compute, cudaStream_t comm_stream) {
  cudaEvent_t grad_ready;
  cudaEventCreateWithFlags(&grad_ready, cudaEventDisableTiming);
  std::vector<GradHook> hooks;
  hooks.push_back([&](float* grad, size_t n) {
#ifdef FIXED
    cudaEventRecord(grad_ready, compute);
    cudaStreamWaitEvent(comm_stream, grad_ready, 0);
#endif
    // expect: streamrace-unsynchronized-cross-stream
    ncclAllReduce(grad, grad, n, ncclFloat, ncclSum, comm, comm_stream);
  });
  backward(activations, grads, elems, layers, hooks, compute);
  cudaStreamSynchronize(comm_stream);
  cudaEventDestroy(grad_ready);
}
