// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Event waited on only on one branch: the metrics stream waits for the loss kernel only in training
// mode, but reads the loss in evaluation mode too.
// Fixed: the wait happens on both branches.
#include <cuda_runtime.h>

__global__ void cross_entropy(const float* logits, const int* labels, float* loss) {
  loss[threadIdx.x] = logits[labels[threadIdx.x]];
}

void compute_loss(const float* logits, const int* labels, float* loss, float* loss_log,
                  bool training, cudaStream_t compute, cudaStream_t metrics) {
  cudaEvent_t loss_ready;
  cudaEventCreateWithFlags(&loss_ready, cudaEventDisableTiming);
  cross_entropy<<<1, 64, 0, compute>>>(logits, labels, loss);
  cudaEventRecord(loss_ready, compute);
#ifdef FIXED
  cudaStreamWaitEvent(metrics, loss_ready, 0);
#else
  if (training) cudaStreamWaitEvent(metrics, loss_ready, 0);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  cudaMemcpyAsync(loss_log, loss, 64 * sizeof(float), cudaMemcpyDeviceToDevice, metrics);
  cudaEventDestroy(loss_ready);
}
