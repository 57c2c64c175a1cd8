// cuBLAS and cuBLASLt calls are stream operations: a handle's work runs on the stream last bound by
// cublasSetStream (the legacy default stream before any), a matmul's on its stream argument, and
// each pointer is accessed as the library documents it (GEMM reads A and B, reads and writes C).
// RUN: %check_streamrace %s %t -- %real_cuda
// RUN: %check_streamrace --tool=tidy %s %t.tidy -- %real_cuda
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

void gemm_reads_upload(cublasHandle_t handle, float* dA, const float* hA, float* dB, float* dC,
                       int n, cudaStream_t copy, cudaStream_t compute) {
  const float alpha = 1.0f, beta = 0.0f;
  cudaMemcpyAsync(dA, hA, sizeof(float) * n * n, cudaMemcpyHostToDevice, copy);
  cublasSetStream(handle, compute);
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, n, dB, n, &beta, dC, n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dA' is read by cublasSgemm on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: cudaMemcpyAsync writes 'dA' on stream 'copy' here
}

void gemm_after_wait(cublasHandle_t handle, float* dA, const float* hA, float* dB, float* dC, int n,
                     cudaStream_t copy, cudaStream_t compute, cudaEvent_t uploaded) {
  const float alpha = 1.0f, beta = 0.0f;
  cudaMemcpyAsync(dA, hA, sizeof(float) * n * n, cudaMemcpyHostToDevice, copy);
  cudaEventRecord(uploaded, copy);
  cudaStreamWaitEvent(compute, uploaded, 0);
  cublasSetStream(handle, compute);
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, n, dB, n, &beta, dC, n);
}

// The last binding counts: the handle is moved onto the copy stream before the GEMM.
void rebound_to_the_copy_stream(cublasHandle_t handle, float* dA, const float* hA, float* dB,
                                float* dC, int n, cudaStream_t copy, cudaStream_t compute) {
  const float alpha = 1.0f, beta = 0.0f;
  cublasSetStream(handle, compute);
  cudaMemcpyAsync(dA, hA, sizeof(float) * n * n, cudaMemcpyHostToDevice, copy);
  cublasSetStream(handle, copy);
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, n, dB, n, &beta, dC, n);
}

// C is read and written: a kernel-free consumer on another stream reads it while the GEMM runs.
void result_read_too_early(cublasHandle_t handle, float* dA, float* dB, float* dC, float* hC, int n,
                           cudaStream_t compute, cudaStream_t copy) {
  const float alpha = 1.0f, beta = 1.0f;
  cublasSetStream(handle, compute);
  cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &alpha, dA, n, n * n, dB, n,
                            n * n, &beta, dC, n, n * n, 4);
  cudaMemcpyAsync(hC, dC, sizeof(float) * n * n * 4, cudaMemcpyDeviceToHost, copy);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dC' is read by cudaMemcpyAsync on stream 'copy' while cublasSgemmStridedBatched on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: cublasSgemmStridedBatched reads and writes 'dC' on stream 'compute' here
}

// A handle never bound runs on the legacy default stream, which does not wait for a
// non-blocking stream.
void unbound_handle_on_the_legacy_stream(float* dX, const float* hX, float* dY, int n) {
  cudaStream_t upload;
  cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking);
  cudaMemcpyAsync(dX, hX, sizeof(float) * n, cudaMemcpyHostToDevice, upload);
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float alpha = 2.0f;
  cublasSaxpy(handle, n, &alpha, dX, 1, dY, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dX' is read by cublasSaxpy on the legacy default stream while cudaMemcpyAsync on stream 'upload' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: cudaMemcpyAsync writes 'dX' on stream 'upload' here
}

// ... and is ordered with blocking streams as the legacy stream is.
void unbound_handle_after_a_blocking_stream(float* dX, const float* hX, float* dY, int n,
                                            cudaStream_t upload) {
  cudaMemcpyAsync(dX, hX, sizeof(float) * n, cudaMemcpyHostToDevice, upload);
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float alpha = 2.0f;
  cublasSaxpy(handle, n, &alpha, dX, 1, dY, 1);
}

// A handle made and bound elsewhere: its stream is unknown here, and nothing is claimed.
void handle_bound_by_the_caller(cublasHandle_t handle, float* dX, const float* hX, float* dY, int n,
                                cudaStream_t upload) {
  cudaMemcpyAsync(dX, hX, sizeof(float) * n, cudaMemcpyHostToDevice, upload);
  const float alpha = 2.0f;
  cublasSaxpy(handle, n, &alpha, dX, 1, dY, 1);
}

// cuBLASLt takes the stream per call; D is written, the workspace read and written.
void matmul_overwrites_pending_output(cublasLtHandle_t lt, cublasLtMatmulDesc_t op,
                                      cublasLtMatrixLayout_t layout, const float* A, const float* B,
                                      float* D, float* hD, void* workspace, size_t workspaceSize,
                                      cudaStream_t compute, cudaStream_t copy) {
  const float alpha = 1.0f, beta = 0.0f;
  cudaMemcpyAsync(hD, D, 4096, cudaMemcpyDeviceToHost, copy);
  cublasLtMatmul(lt, op, &alpha, A, layout, B, layout, &beta, D, layout, D, layout, nullptr,
                 workspace, workspaceSize, compute);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'D' is read and written by cublasLtMatmul on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: cudaMemcpyAsync reads 'D' on stream 'copy' here
}

void matmul_after_the_copy(cublasLtHandle_t lt, cublasLtMatmulDesc_t op,
                           cublasLtMatrixLayout_t layout, const float* A, const float* B, float* D,
                           float* hD, void* workspace, size_t workspaceSize, cudaStream_t compute,
                           cudaStream_t copy) {
  const float alpha = 1.0f, beta = 0.0f;
  cudaMemcpyAsync(hD, D, 4096, cudaMemcpyDeviceToHost, copy);
  cudaStreamSynchronize(copy);
  cublasLtMatmul(lt, op, &alpha, A, layout, B, layout, &beta, D, layout, D, layout, nullptr,
                 workspace, workspaceSize, compute);
}
