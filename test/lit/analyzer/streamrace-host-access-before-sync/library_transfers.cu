// cuBLAS's transfers are copies on their stream argument; without one the host waits for them, and
// a BLAS reduction into host memory (the default pointer mode) returns once it is done.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cublas_v2.h>
#include <cuda_runtime.h>

float read_before_download_done(const float* dY, int n, cudaStream_t stream) {
  float* hY;
  cudaMallocHost(&hY, sizeof(float) * n);
  cublasGetVectorAsync(n, sizeof(float), dY, 1, hY, 1, stream);
  return hY[0];
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the host reads 'hY' while cublasGetVectorAsync on stream 'stream' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cublasGetVectorAsync writes 'hY' on stream 'stream' here
}

float read_after_blocking_download(const float* dY, int n) {
  float* hY;
  cudaMallocHost(&hY, sizeof(float) * n);
  cublasGetVector(n, sizeof(float), dY, 1, hY, 1);
  return hY[0];
}

float read_after_stream_sync(const float* dY, int n, cudaStream_t stream) {
  float* hY;
  cudaMallocHost(&hY, sizeof(float) * n);
  cublasGetVectorAsync(n, sizeof(float), dY, 1, hY, 1, stream);
  cudaStreamSynchronize(stream);
  return hY[0];
}

// The dot product's result is in host memory when the call returns: the upload it follows on
// the handle's stream is complete too.
float reuse_staging_after_dot(cublasHandle_t handle, float* dX, int n, cudaStream_t stream) {
  float* staging;
  cudaMallocHost(&staging, sizeof(float) * n);
  cublasSetStream(handle, stream);
  cudaMemcpyAsync(dX, staging, sizeof(float) * n, cudaMemcpyHostToDevice, stream);
  float result = 0;
  cublasSdot(handle, n, dX, 1, dX, 1, &result);
  staging[0] = result;
  return result;
}
