// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The cuBLAS and cuBLASLt calls a training job makes, on the emulator's stand-ins: a handle on a
// stream, Sgemm with transposes, GemmEx from half inputs to float, a strided-batched Dgemm,
// Sgemv, a dot product into host memory, the Lt matmul with a bias and ReLU epilogue, and a
// refused call. Each product is compared with the same product computed here on the CPU. Built
// against the real toolkit's libcublas, libcublasLt and libcudart.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "../../Inputs/check_call.h"

namespace {

// Column-major m x n result of op(A) * op(B), A and B column-major with leading dimensions.
std::vector<double> product(bool ta, bool tb, int m, int n, int k, const std::vector<float>& a,
                            int lda, const std::vector<float>& b, int ldb) {
  std::vector<double> c(std::size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int l = 0; l < k; ++l)
        sum +=
            double(ta ? a[l + i * lda] : a[i + l * lda]) * (tb ? b[j + l * ldb] : b[l + j * ldb]);
      c[i + std::size_t(j) * m] = sum;
    }
  return c;
}

template <typename T>
double largestError(const std::vector<T>& got, const std::vector<double>& want) {
  double error = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    error = std::fmax(error, std::fabs(double(got[i]) - want[i]));
  return error;
}

template <typename T> T* upload(const std::vector<T>& host) {
  void* device = nullptr;
  cudaMalloc(&device, host.size() * sizeof(T));
  cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return static_cast<T*>(device);
}

template <typename T> std::vector<T> download(const T* device, std::size_t count) {
  std::vector<T> host(count);
  cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost);
  return host;
}

std::vector<float> filled(std::size_t count, float scale) {
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i)
    values[i] = scale * float(int(i % 7) - 3);
  return values;
}

} // namespace

int main() {
  cublasHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreate(&stream));
  std::printf("create: %d\n", int(cublasCreate(&handle)));
  std::printf("set stream: %d\n", int(cublasSetStream(handle, stream)));

  const int m = 5, n = 3, k = 4;
  const std::vector<float> a = filled(std::size_t(k) * m, 0.5f);  // k x m, used transposed
  const std::vector<float> b = filled(std::size_t(k) * n, 0.25f); // k x n
  float* da = upload(a);
  float* db = upload(b);
  float* dc = upload(std::vector<float>(std::size_t(m) * n, 0));
  const float one = 1, zero = 0;
  const int sgemmStatus =
      int(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, da, k, db, k, &zero, dc, m));
  CHECK(cudaStreamSynchronize(stream));
  std::printf(
      "sgemm T,N: %d error %.1e\n", sgemmStatus,
      largestError(download(dc, std::size_t(m) * n), product(true, false, m, n, k, a, k, b, k)));

  std::vector<__half> ah(a.size()), bh(b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    ah[i] = __float2half(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i)
    bh[i] = __float2half(b[i]);
  __half* dah = upload(ah);
  __half* dbh = upload(bh);
  const int gemmExStatus = int(cublasGemmEx(
      handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, dah, CUDA_R_16F, k, dbh, CUDA_R_16F, k,
      &zero, dc, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  CHECK(cudaStreamSynchronize(stream));
  std::printf(
      "gemmEx half->float: %d error %.1e\n", gemmExStatus,
      largestError(download(dc, std::size_t(m) * n), product(true, false, m, n, k, a, k, b, k)));

  // Two batch entries of a 2 x 2 product, the second one's inputs 4 elements further on.
  const std::vector<double> batchA{1, 2, 3, 4, 5, 6, 7, 8}, batchB{1, 0, 0, 1, 2, 0, 0, 2};
  double* dba = upload(batchA);
  double* dbb = upload(batchB);
  double* dbc = upload(std::vector<double>(8, 0));
  const double oneD = 1, zeroD = 0;
  const int stridedStatus =
      int(cublasDgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &oneD, dba, 2, 4,
                                    dbb, 2, 4, &zeroD, dbc, 2, 4, 2));
  CHECK(cudaStreamSynchronize(stream));
  const std::vector<double> batched = download(dbc, 8);
  std::printf("dgemm strided batched: %d results %g %g %g %g | %g %g %g %g\n", stridedStatus,
              batched[0], batched[1], batched[2], batched[3], batched[4], batched[5], batched[6],
              batched[7]);

  float* dy = upload(std::vector<float>(m, 1));
  const int gemvStatus =
      int(cublasSgemv(handle, CUBLAS_OP_T, k, m, &one, da, k, db, 1, &one, dy, 1));
  CHECK(cudaStreamSynchronize(stream));
  std::vector<double> gemv = product(true, false, m, 1, k, a, k, b, k);
  for (double& value : gemv)
    value += 1;
  std::printf("sgemv T: %d error %.1e\n", gemvStatus, largestError(download(dy, m), gemv));

  float dotResult = 0;
  const int dotStatus = int(cublasSdot(handle, k, db, 1, db + k, 1, &dotResult));
  double dotWant = 0;
  for (int i = 0; i < k; ++i)
    dotWant += double(b[i]) * b[k + i];
  std::printf("sdot into host memory: %d result %g want %g\n", dotStatus, dotResult, dotWant);

  // Lt: D = relu(A^T B + bias), bias of m elements.
  const std::vector<float> bias{-1, 0, 1, 2, -3};
  float* dbias = upload(bias);
  float* dd = upload(std::vector<float>(std::size_t(m) * n, 0));
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulDescCreate(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  const cublasOperation_t transpose = CUBLAS_OP_T;
  const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_RELU_BIAS;
  cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSA, &transpose,
                                 sizeof transpose);
  cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                 sizeof epilogue);
  cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias,
                                 sizeof dbias);
  cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, k, m, k);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m);
  cublasLtMatmulPreference_t preference = nullptr;
  cublasLtMatmulPreferenceCreate(&preference);
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  const auto lt = reinterpret_cast<cublasLtHandle_t>(handle);
  const int heuristicStatus = int(cublasLtMatmulAlgoGetHeuristic(
      lt, operation, la, lb, lc, lc, preference, 1, &heuristic, &found));
  std::printf("lt heuristic: %d found %d\n", heuristicStatus, found);
  const int matmulStatus = int(cublasLtMatmul(lt, operation, &one, da, la, db, lb, &zero, dd, lc,
                                              dd, lc, &heuristic.algo, nullptr, 0, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::vector<double> want = product(true, false, m, n, k, a, k, b, k);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      want[i + j * m] = std::fmax(0.0, want[i + j * m] + bias[i]);
  std::printf("lt matmul relu+bias: %d error %.1e\n", matmulStatus,
              largestError(download(dd, std::size_t(m) * n), want));

  std::printf("refused strsm: %d\n",
              int(cublasStrsm(handle, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                              CUBLAS_DIAG_NON_UNIT, 2, 2, &one, da, 2, db, 2)));
  std::printf("bad leading dimension: %d\n", int(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n,
                                                             k, &one, da, 1, db, k, &zero, dc, m)));
  std::printf("destroy: %d\n", int(cublasDestroy(handle)));
  return 0;
}
