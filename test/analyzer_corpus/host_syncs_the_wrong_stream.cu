// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Evaluation loop: the host synchronizes the compute stream and then reads the predictions, but
// they were copied to pinned memory on the copy stream, which nothing synchronized. Fixed: the host
// synchronizes the copy stream (which waited for the compute stream) instead.
#include <cuda_runtime.h>

__global__ void argmax(const float* logits, int* predictions, int classes) {
  int best = 0;
  for (int c = 1; c < classes; ++c)
    if (logits[threadIdx.x * classes + c] > logits[threadIdx.x * classes + best]) best = c;
  predictions[threadIdx.x] = best;
}

int count_correct(const float* logits, const int* labels, int batch, int classes,
                  int* d_predictions, cudaStream_t compute, cudaStream_t copy_stream) {
  int* predictions = nullptr;
  cudaMallocHost(&predictions, batch * sizeof(int));
  argmax<<<1, batch, 0, compute>>>(logits, d_predictions, classes);
  cudaEvent_t predicted;
  cudaEventCreateWithFlags(&predicted, cudaEventDisableTiming);
  cudaEventRecord(predicted, compute);
  cudaStreamWaitEvent(copy_stream, predicted, 0);
  cudaMemcpyAsync(predictions, d_predictions, batch * sizeof(int), cudaMemcpyDeviceToHost,
                  copy_stream);
#ifdef FIXED
  cudaStreamSynchronize(copy_stream);
#else
  cudaStreamSynchronize(compute);
#endif
  int correct = 0;
  for (int i = 0; i < batch; ++i)
    // expect: streamrace-host-access-before-sync
    correct += predictions[i] == labels[i];
  cudaFreeHost(predictions);
  cudaEventDestroy(predicted);
  return correct;
}
