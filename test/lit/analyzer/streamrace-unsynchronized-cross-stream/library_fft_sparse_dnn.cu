// cuFFT plans, cuSPARSE handles and cuDNN handles run their work on the stream last bound to them;
// cuSPARSE's calls access the memory their descriptors hold.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cuda_runtime.h>
#include <cudnn.h>
#include <cufft.h>
#include <cusparse.h>

void fft_reads_upload(cufftComplex* signal, const cufftComplex* host, cufftComplex* spectrum, int n,
                      cudaStream_t copy, cudaStream_t compute) {
  cufftHandle plan;
  cufftPlan1d(&plan, n, CUFFT_C2C, 1);
  cufftSetStream(plan, compute);
  cudaMemcpyAsync(signal, host, sizeof(cufftComplex) * n, cudaMemcpyHostToDevice, copy);
  cufftExecC2C(plan, signal, spectrum, CUFFT_FORWARD);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'signal' is read by cufftExecC2C on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync writes 'signal' on stream 'copy' here
}

void fft_after_wait(cufftComplex* signal, const cufftComplex* host, cufftComplex* spectrum, int n,
                    cudaStream_t copy, cudaStream_t compute, cudaEvent_t uploaded) {
  cufftHandle plan;
  cufftPlan1d(&plan, n, CUFFT_C2C, 1);
  cufftSetStream(plan, compute);
  cudaMemcpyAsync(signal, host, sizeof(cufftComplex) * n, cudaMemcpyHostToDevice, copy);
  cudaEventRecord(uploaded, copy);
  cudaStreamWaitEvent(compute, uploaded, 0);
  cufftExecC2C(plan, signal, spectrum, CUFFT_FORWARD);
}

void spmv_reads_upload(cusparseHandle_t handle, int rows, int nnz, int* offsets, int* columns,
                       float* values, float* dX, const float* hX, float* dY, void* buffer,
                       cudaStream_t copy, cudaStream_t compute) {
  cusparseSpMatDescr_t matA;
  cusparseDnVecDescr_t vecX, vecY;
  cusparseCreateCsr(&matA, rows, rows, nnz, offsets, columns, values, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  cusparseCreateDnVec(&vecX, rows, dX, CUDA_R_32F);
  cusparseCreateDnVec(&vecY, rows, dY, CUDA_R_32F);
  cusparseSetStream(handle, compute);
  const float alpha = 1.0f, beta = 0.0f;
  cudaMemcpyAsync(dX, hX, sizeof(float) * rows, cudaMemcpyHostToDevice, copy);
  cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX, &beta, vecY,
               CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buffer);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'dX' is read by cusparseSpMV on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: cudaMemcpyAsync writes 'dX' on stream 'copy' here
}

void spmv_after_sync(cusparseHandle_t handle, int rows, int nnz, int* offsets, int* columns,
                     float* values, float* dX, const float* hX, float* dY, void* buffer,
                     cudaStream_t copy, cudaStream_t compute) {
  cusparseSpMatDescr_t matA;
  cusparseDnVecDescr_t vecX, vecY;
  cusparseCreateCsr(&matA, rows, rows, nnz, offsets, columns, values, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  cusparseCreateDnVec(&vecX, rows, dX, CUDA_R_32F);
  cusparseCreateDnVec(&vecY, rows, dY, CUDA_R_32F);
  cusparseSetStream(handle, compute);
  const float alpha = 1.0f, beta = 0.0f;
  cudaMemcpyAsync(dX, hX, sizeof(float) * rows, cudaMemcpyHostToDevice, copy);
  cudaStreamSynchronize(copy);
  cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX, &beta, vecY,
               CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buffer);
}

// Two handles on two streams sharing one workspace: both convolutions write it.
void shared_workspace(cudnnHandle_t first, cudnnHandle_t second, cudnnTensorDescriptor_t xDesc,
                      cudnnFilterDescriptor_t wDesc, cudnnConvolutionDescriptor_t convDesc,
                      cudnnTensorDescriptor_t yDesc, const float* x, const float* w, float* y0,
                      float* y1, void* workspace, size_t workspaceBytes, cudaStream_t s0,
                      cudaStream_t s1) {
  const float alpha = 1.0f, beta = 0.0f;
  cudnnSetStream(first, s0);
  cudnnSetStream(second, s1);
  cudnnConvolutionForward(first, &alpha, xDesc, x, wDesc, w, convDesc,
                          CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, workspace, workspaceBytes,
                          &beta, yDesc, y0);
  cudnnConvolutionForward(second, &alpha, xDesc, x, wDesc, w, convDesc,
                          CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, workspace, workspaceBytes,
                          &beta, yDesc, y1);
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: 'workspace' is read and written by cudnnConvolutionForward on stream 's1' while cudnnConvolutionForward on stream 's0' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-7]]:3: note: cudnnConvolutionForward reads and writes 'workspace' on stream 's0' here
}

void workspace_per_stream(cudnnHandle_t first, cudnnHandle_t second, cudnnTensorDescriptor_t xDesc,
                          cudnnFilterDescriptor_t wDesc, cudnnConvolutionDescriptor_t convDesc,
                          cudnnTensorDescriptor_t yDesc, const float* x, const float* w, float* y0,
                          float* y1, void* workspace0, void* workspace1, size_t workspaceBytes,
                          cudaStream_t s0, cudaStream_t s1) {
  const float alpha = 1.0f, beta = 0.0f;
  cudnnSetStream(first, s0);
  cudnnSetStream(second, s1);
  cudnnConvolutionForward(first, &alpha, xDesc, x, wDesc, w, convDesc,
                          CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, workspace0, workspaceBytes,
                          &beta, yDesc, y0);
  cudnnConvolutionForward(second, &alpha, xDesc, x, wDesc, w, convDesc,
                          CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, workspace1, workspaceBytes,
                          &beta, yDesc, y1);
}
