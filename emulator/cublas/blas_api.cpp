// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The cuBLAS API a training job uses, on the emulated runtime: handles (stream, workspace, math
// and pointer modes), the gemm family (typed, Ex, strided-batched, batched by pointer arrays),
// gemv, dot, and the vector/matrix transfers. Products run on the CPU in stream order
// (gemm.h), so their values are real. The rest of the library refuses with
// CUBLAS_STATUS_NOT_SUPPORTED (blas_refused.cpp).
#include <cublas_api.h>

#include "element_types.h"
#include "gemm.h"
#include "refused_status.h"

#include <algorithm>
#include <cstdint>
#include <memory>

static_assert(kRefusedStatus == CUBLAS_STATUS_NOT_SUPPORTED);

struct cublasContext {
  cudaStream_t stream = nullptr;
  void* workspace = nullptr;
  std::size_t workspaceBytes = 0;
  cublasMath_t mathMode = CUBLAS_DEFAULT_MATH;
  cublasPointerMode_t pointerMode = CUBLAS_POINTER_MODE_HOST;
  int smCountTarget = 0;
};

using namespace streamrace::emu::blas;

namespace {

template <typename T> constexpr cudaDataType typeOf();
template <> constexpr cudaDataType typeOf<float>() {
  return CUDA_R_32F;
}
template <> constexpr cudaDataType typeOf<double>() {
  return CUDA_R_64F;
}
template <> constexpr cudaDataType typeOf<cuComplex>() {
  return CUDA_C_32F;
}
template <> constexpr cudaDataType typeOf<cuDoubleComplex>() {
  return CUDA_C_64F;
}

cublasStatus_t statusOf(cudaError_t error) {
  return error == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

bool validOperation(cublasOperation_t operation) {
  return operation == CUBLAS_OP_N || operation == CUBLAS_OP_T || operation == CUBLAS_OP_C;
}

// A column-major operand as cuBLAS passes it.
MatrixView columnMajor(const void* data, cudaDataType type, std::int64_t ld,
                       cublasOperation_t operation, std::int64_t batchStride = 0) {
  MatrixView view;
  view.data = data;
  view.type = type;
  view.columnStride = ld;
  view.batchStride = batchStride;
  view.transposed = operation != CUBLAS_OP_N;
  view.conjugated = operation == CUBLAS_OP_C;
  return view;
}

// A strided vector as a one-column matrix; a negative increment walks it from its end.
MatrixView vector(const void* data, cudaDataType type, std::int64_t count, std::int64_t increment) {
  MatrixView view;
  view.type = type;
  view.rowStride = increment;
  view.data = static_cast<const std::byte*>(data) +
              (increment < 0 ? (1 - count) * increment * std::int64_t(elementSize(type)) : 0);
  return view;
}

// The type alpha and beta have for a compute type (cublasGemmEx and friends).
cudaDataType scaleTypeOf(cublasComputeType_t compute, cudaDataType outputType) {
  switch (compute) {
  case CUBLAS_COMPUTE_16F:
  case CUBLAS_COMPUTE_16F_PEDANTIC:
    return CUDA_R_16F;
  case CUBLAS_COMPUTE_64F:
  case CUBLAS_COMPUTE_64F_PEDANTIC:
  case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
    return isComplex(outputType) ? CUDA_C_64F : CUDA_R_64F;
  case CUBLAS_COMPUTE_32I:
  case CUBLAS_COMPUTE_32I_PEDANTIC:
    return CUDA_R_32I;
  default:
    return isComplex(outputType) ? CUDA_C_32F : CUDA_R_32F;
  }
}

struct GemmArguments {
  cublasOperation_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  std::int64_t m = 0, n = 0, k = 0;
  const void* alpha = nullptr;
  const void* a = nullptr;
  cudaDataType aType = CUDA_R_32F;
  std::int64_t lda = 0, strideA = 0;
  const void* b = nullptr;
  cudaDataType bType = CUDA_R_32F;
  std::int64_t ldb = 0, strideB = 0;
  const void* beta = nullptr;
  void* c = nullptr;
  cudaDataType cType = CUDA_R_32F;
  std::int64_t ldc = 0, strideC = 0;
  std::int64_t batch = 1;
  bool pointerArrays = false;
  cudaDataType scaleType = CUDA_R_32F;
};

cublasStatus_t gemm(cublasHandle_t handle, const GemmArguments& call) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  const std::int64_t aRows = call.transa == CUBLAS_OP_N ? call.m : call.k;
  const std::int64_t bRows = call.transb == CUBLAS_OP_N ? call.k : call.n;
  if (!validOperation(call.transa) || !validOperation(call.transb) || call.m < 0 || call.n < 0 ||
      call.k < 0 || call.batch < 0 || call.lda < std::max<std::int64_t>(1, aRows) ||
      call.ldb < std::max<std::int64_t>(1, bRows) || call.ldc < std::max<std::int64_t>(1, call.m) ||
      call.alpha == nullptr || call.beta == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  for (cudaDataType type : {call.aType, call.bType, call.cType, call.scaleType}) {
    if (elementSize(type) == 0) {
      return CUBLAS_STATUS_NOT_SUPPORTED;
    }
  }
  if (call.m == 0 || call.n == 0 || call.batch == 0) {
    return CUBLAS_STATUS_SUCCESS;
  }
  const bool onDevice = handle->pointerMode == CUBLAS_POINTER_MODE_DEVICE;
  GemmProblem problem;
  problem.m = call.m;
  problem.n = call.n;
  problem.k = call.k;
  problem.batch = call.batch;
  problem.a = columnMajor(call.a, call.aType, call.lda, call.transa, call.strideA);
  problem.b = columnMajor(call.b, call.bType, call.ldb, call.transb, call.strideB);
  problem.c = columnMajor(call.c, call.cType, call.ldc, CUBLAS_OP_N, call.strideC);
  problem.d = problem.c;
  problem.a.pointerArray = problem.b.pointerArray = problem.c.pointerArray =
      problem.d.pointerArray = call.pointerArrays;
  problem.alpha = scalarAt(call.alpha, call.scaleType, onDevice);
  problem.beta = scalarAt(call.beta, call.scaleType, onDevice);
  return statusOf(enqueueGemm(problem, handle->stream));
}

template <typename T>
cublasStatus_t typedGemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                         int m, int n, int k, const T* alpha, const void* a, int lda,
                         long long strideA, const void* b, int ldb, long long strideB,
                         const T* beta, void* c, int ldc, long long strideC, int batch,
                         bool pointerArrays) {
  constexpr cudaDataType type = typeOf<T>();
  return gemm(handle, GemmArguments{transa, transb, m,       n,   k,       alpha, a,
                                    type,   lda,    strideA, b,   type,    ldb,   strideB,
                                    beta,   c,      type,    ldc, strideC, batch, pointerArrays,
                                    type});
}

cublasStatus_t gemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const void* alpha,
                    const void* a, int lda, const void* x, int incx, const void* beta, void* y,
                    int incy, cudaDataType type) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (!validOperation(trans) || m < 0 || n < 0 || lda < std::max(1, m) || incx == 0 || incy == 0 ||
      alpha == nullptr || beta == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const std::int64_t rows = trans == CUBLAS_OP_N ? m : n;
  const std::int64_t columns = trans == CUBLAS_OP_N ? n : m;
  if (rows == 0) {
    return CUBLAS_STATUS_SUCCESS;
  }
  const bool onDevice = handle->pointerMode == CUBLAS_POINTER_MODE_DEVICE;
  GemmProblem problem;
  problem.m = rows;
  problem.n = 1;
  problem.k = columns;
  problem.a = columnMajor(a, type, lda, trans);
  problem.b = vector(x, type, columns, incx);
  problem.c = vector(y, type, rows, incy);
  problem.d = problem.c;
  problem.alpha = scalarAt(alpha, type, onDevice);
  problem.beta = scalarAt(beta, type, onDevice);
  return statusOf(enqueueGemm(problem, handle->stream));
}

// The inner product as a 1 x n times n x 1 product; a result in host memory is there when the
// call returns, as cuBLAS waits for it.
cublasStatus_t dot(cublasHandle_t handle, int n, const void* x, cudaDataType xType, int incx,
                   const void* y, cudaDataType yType, int incy, void* result,
                   cudaDataType resultType, bool conjugateX) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (result == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (elementSize(xType) == 0 || elementSize(yType) == 0 || elementSize(resultType) == 0) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  static constexpr double one = 1;
  GemmProblem problem;
  problem.m = 1;
  problem.n = 1;
  problem.k = std::max(n, 0);
  problem.a = vector(x, xType, problem.k, incx);
  std::swap(problem.a.rowStride, problem.a.columnStride); // x as a row
  problem.a.conjugated = conjugateX;
  problem.b = vector(y, yType, problem.k, incy);
  problem.d.data = result;
  problem.d.type = resultType;
  problem.c = problem.d;
  problem.alpha = scalarAt(&one, CUDA_R_64F, false);
  problem.beta = Scalar{};
  const cudaError_t error = enqueueGemm(problem, handle->stream);
  if (error == cudaSuccess && handle->pointerMode == CUBLAS_POINTER_MODE_HOST) {
    return statusOf(cudaStreamSynchronize(handle->stream));
  }
  return statusOf(error);
}

cublasStatus_t transfer(int rows, int columns, int elementBytes, const void* source,
                        int sourceStride, void* destination, int destinationStride,
                        cudaMemcpyKind kind, cudaStream_t stream) {
  if (rows < 0 || columns < 0 || elementBytes <= 0 || sourceStride <= 0 || destinationStride <= 0) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (rows == 0 || columns == 0) {
    return CUBLAS_STATUS_SUCCESS;
  }
  const std::size_t size = std::size_t(elementBytes);
  return cudaMemcpy2DAsync(destination, std::size_t(destinationStride) * size, source,
                           std::size_t(sourceStride) * size, std::size_t(rows) * size,
                           std::size_t(columns), kind, stream) == cudaSuccess
             ? CUBLAS_STATUS_SUCCESS
             : CUBLAS_STATUS_MAPPING_ERROR;
}

} // namespace

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  *handle = std::make_unique<cublasContext>().release();
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  // Work already enqueued holds copies of what it needs.
  std::unique_ptr<cublasContext> owned(handle);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int* version) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (version == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  *version = CUBLAS_VERSION;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value) {
  if (value == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  switch (type) {
  case MAJOR_VERSION:
    *value = CUBLAS_VER_MAJOR;
    return CUBLAS_STATUS_SUCCESS;
  case MINOR_VERSION:
    *value = CUBLAS_VER_MINOR;
    return CUBLAS_STATUS_SUCCESS;
  case PATCH_LEVEL:
    *value = CUBLAS_VER_PATCH;
    return CUBLAS_STATUS_SUCCESS;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

size_t cublasGetCudartVersion(void) {
  return CUDART_VERSION;
}

const char* cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

const char* cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "success";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "the library was not initialized";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "the resource allocation failed";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "an invalid numeric value was used as an argument";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "an absent device architectural feature is required";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "an access to GPU memory space failed";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "the GPU program failed to execute";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "an internal operation failed";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "the functionality requested is not supported";
  case CUBLAS_STATUS_LICENSE_ERROR:
    return "error detected trying to check the license";
  }
  return "unknown error";
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  handle->stream = streamId;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* streamId) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (streamId == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  *streamId = handle->stream;
  return CUBLAS_STATUS_SUCCESS;
}

// The emulated products need no scratch memory; the workspace is kept as the caller's.
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace,
                                     size_t workspaceSizeInBytes) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (workspace == nullptr && workspaceSizeInBytes != 0) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  handle->workspace = workspace;
  handle->workspaceBytes = workspaceSizeInBytes;
  return CUBLAS_STATUS_SUCCESS;
}

// Math modes choose tensor-core shortcuts on a GPU; the emulator computes every product in
// double precision whatever the mode.
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  handle->mathMode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (mode == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  *mode = handle->mathMode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  handle->pointerMode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t* mode) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (mode == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  *mode = handle->pointerMode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int smCountTarget) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (smCountTarget < 0) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  handle->smCountTarget = smCountTarget;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetSmCountTarget(cublasHandle_t handle, int* smCountTarget) {
  if (handle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (smCountTarget == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  *smCountTarget = handle->smCountTarget;
  return CUBLAS_STATUS_SUCCESS;
}

// T is a type: it cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define STREAMRACE_TYPED_GEMMS(prefix, T)                                                          \
  cublasStatus_t cublas##prefix##gemm_v2(cublasHandle_t handle, cublasOperation_t transa,          \
                                         cublasOperation_t transb, int m, int n, int k,            \
                                         const T* alpha, const T* A, int lda, const T* B, int ldb, \
                                         const T* beta, T* C, int ldc) {                           \
    return typedGemm<T>(handle, transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C,     \
                        ldc, 0, 1, false);                                                         \
  }                                                                                                \
  cublasStatus_t cublas##prefix##gemmStridedBatched(                                               \
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,     \
      int k, const T* alpha, const T* A, int lda, long long strideA, const T* B, int ldb,          \
      long long strideB, const T* beta, T* C, int ldc, long long strideC, int batchCount) {        \
    return typedGemm<T>(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,  \
                        beta, C, ldc, strideC, batchCount, false);                                 \
  }                                                                                                \
  cublasStatus_t cublas##prefix##gemmBatched(                                                      \
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,     \
      int k, const T* alpha, const T* const Aarray[], int lda, const T* const Barray[], int ldb,   \
      const T* beta, T* const Carray[], int ldc, int batchCount) {                                 \
    return typedGemm<T>(handle, transa, transb, m, n, k, alpha, Aarray, lda, 0, Barray, ldb, 0,    \
                        beta, const_cast<T**>(Carray), ldc, 0, batchCount, true);                  \
  }                                                                                                \
  cublasStatus_t cublas##prefix##gemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m,    \
                                         int n, const T* alpha, const T* A, int lda, const T* x,   \
                                         int incx, const T* beta, T* y, int incy) {                \
    return gemv(handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy, typeOf<T>());          \
  }
// NOLINTEND(bugprone-macro-parentheses)

STREAMRACE_TYPED_GEMMS(S, float)
STREAMRACE_TYPED_GEMMS(D, double)
STREAMRACE_TYPED_GEMMS(C, cuComplex)
STREAMRACE_TYPED_GEMMS(Z, cuDoubleComplex)
#undef STREAMRACE_TYPED_GEMMS

cublasStatus_t cublasSgemmEx(cublasHandle_t handle, cublasOperation_t transa,
                             cublasOperation_t transb, int m, int n, int k, const float* alpha,
                             const void* A, cudaDataType Atype, int lda, const void* B,
                             cudaDataType Btype, int ldb, const float* beta, void* C,
                             cudaDataType Ctype, int ldc) {
  return gemm(handle,
              GemmArguments{transa, transb, m, n,    k, alpha, A,   Atype, lda, 0,     B,
                            Btype,  ldb,    0, beta, C, Ctype, ldc, 0,     1,   false, CUDA_R_32F});
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void* alpha,
                            const void* A, cudaDataType Atype, int lda, const void* B,
                            cudaDataType Btype, int ldb, const void* beta, void* C,
                            cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t) {
  return gemm(handle, GemmArguments{transa, transb,
                                    m,      n,
                                    k,      alpha,
                                    A,      Atype,
                                    lda,    0,
                                    B,      Btype,
                                    ldb,    0,
                                    beta,   C,
                                    Ctype,  ldc,
                                    0,      1,
                                    false,  scaleTypeOf(computeType, Ctype)});
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                          cublasOperation_t transb, int m, int n, int k,
                                          const void* alpha, const void* A, cudaDataType Atype,
                                          int lda, long long int strideA, const void* B,
                                          cudaDataType Btype, int ldb, long long int strideB,
                                          const void* beta, void* C, cudaDataType Ctype, int ldc,
                                          long long int strideC, int batchCount,
                                          cublasComputeType_t computeType, cublasGemmAlgo_t) {
  return gemm(handle, GemmArguments{transa,  transb,
                                    m,       n,
                                    k,       alpha,
                                    A,       Atype,
                                    lda,     strideA,
                                    B,       Btype,
                                    ldb,     strideB,
                                    beta,    C,
                                    Ctype,   ldc,
                                    strideC, batchCount,
                                    false,   scaleTypeOf(computeType, Ctype)});
}

cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                   cublasOperation_t transb, int m, int n, int k, const void* alpha,
                                   const void* const Aarray[], cudaDataType Atype, int lda,
                                   const void* const Barray[], cudaDataType Btype, int ldb,
                                   const void* beta, void* const Carray[], cudaDataType Ctype,
                                   int ldc, int batchCount, cublasComputeType_t computeType,
                                   cublasGemmAlgo_t) {
  return gemm(handle, GemmArguments{transa, transb,
                                    m,      n,
                                    k,      alpha,
                                    Aarray, Atype,
                                    lda,    0,
                                    Barray, Btype,
                                    ldb,    0,
                                    beta,   const_cast<void**>(Carray),
                                    Ctype,  ldc,
                                    0,      batchCount,
                                    true,   scaleTypeOf(computeType, Ctype)});
}

cublasStatus_t cublasSdot_v2(cublasHandle_t handle, int n, const float* x, int incx, const float* y,
                             int incy, float* result) {
  return dot(handle, n, x, CUDA_R_32F, incx, y, CUDA_R_32F, incy, result, CUDA_R_32F, false);
}

cublasStatus_t cublasDdot_v2(cublasHandle_t handle, int n, const double* x, int incx,
                             const double* y, int incy, double* result) {
  return dot(handle, n, x, CUDA_R_64F, incx, y, CUDA_R_64F, incy, result, CUDA_R_64F, false);
}

cublasStatus_t cublasCdotu_v2(cublasHandle_t handle, int n, const cuComplex* x, int incx,
                              const cuComplex* y, int incy, cuComplex* result) {
  return dot(handle, n, x, CUDA_C_32F, incx, y, CUDA_C_32F, incy, result, CUDA_C_32F, false);
}

cublasStatus_t cublasCdotc_v2(cublasHandle_t handle, int n, const cuComplex* x, int incx,
                              const cuComplex* y, int incy, cuComplex* result) {
  return dot(handle, n, x, CUDA_C_32F, incx, y, CUDA_C_32F, incy, result, CUDA_C_32F, true);
}

cublasStatus_t cublasZdotu_v2(cublasHandle_t handle, int n, const cuDoubleComplex* x, int incx,
                              const cuDoubleComplex* y, int incy, cuDoubleComplex* result) {
  return dot(handle, n, x, CUDA_C_64F, incx, y, CUDA_C_64F, incy, result, CUDA_C_64F, false);
}

cublasStatus_t cublasZdotc_v2(cublasHandle_t handle, int n, const cuDoubleComplex* x, int incx,
                              const cuDoubleComplex* y, int incy, cuDoubleComplex* result) {
  return dot(handle, n, x, CUDA_C_64F, incx, y, CUDA_C_64F, incy, result, CUDA_C_64F, true);
}

cublasStatus_t cublasDotEx(cublasHandle_t handle, int n, const void* x, cudaDataType xType,
                           int incx, const void* y, cudaDataType yType, int incy, void* result,
                           cudaDataType resultType, cudaDataType) {
  return dot(handle, n, x, xType, incx, y, yType, incy, result, resultType, false);
}

cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void* hostPtr, int incx,
                                    void* devicePtr, int incy, cudaStream_t stream) {
  return transfer(1, n, elemSize, hostPtr, incx, devicePtr, incy, cudaMemcpyHostToDevice, stream);
}

cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void* devicePtr, int incx,
                                    void* hostPtr, int incy, cudaStream_t stream) {
  return transfer(1, n, elemSize, devicePtr, incx, hostPtr, incy, cudaMemcpyDeviceToHost, stream);
}

cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void* A, int lda,
                                    void* B, int ldb, cudaStream_t stream) {
  if (lda < std::max(1, rows) || ldb < std::max(1, rows)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  return transfer(rows, cols, elemSize, A, lda, B, ldb, cudaMemcpyHostToDevice, stream);
}

cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void* A, int lda,
                                    void* B, int ldb, cudaStream_t stream) {
  if (lda < std::max(1, rows) || ldb < std::max(1, rows)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  return transfer(rows, cols, elemSize, A, lda, B, ldb, cudaMemcpyDeviceToHost, stream);
}

} // extern "C"
