// A 2D copy writes its destination like any copy; a host function orders nothing for buffers.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

void notify(void*) {}

void racy(float* image, const float* staged, size_t pitch, cudaStream_t upload,
          cudaStream_t render) {
  cudaMemcpy2DAsync(image, pitch, staged, pitch, 64, 64, cudaMemcpyDeviceToDevice, upload);
  cudaLaunchHostFunc(upload, notify, nullptr);
  cudaMemsetAsync(image, 0, 64, render);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'image' is written by cudaMemsetAsync on stream 'render' while cudaMemcpy2DAsync on stream 'upload' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void ordered(float* image, const float* staged, size_t pitch, cudaStream_t upload,
             cudaStream_t render) {
  cudaMemcpy2DAsync(image, pitch, staged, pitch, 64, 64, cudaMemcpyDeviceToDevice, upload);
  cudaStreamSynchronize(upload);
  cudaMemsetAsync(image, 0, 64, render);
}
