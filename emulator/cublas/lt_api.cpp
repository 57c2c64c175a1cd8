// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The cuBLASLt matmul path (what PyTorch uses for addmm with a bias, the Linear layer's forward):
// matrix layouts, matmul descriptors with transposes and epilogues (bias, ReLU, GELU),
// preferences, the algorithm heuristic and cublasLtMatmul itself, on the emulated runtime. Each
// descriptor lives in the opaque storage cublasLt.h gives it, so descriptors created by the
// library and ones a program initializes in its own memory work alike. Every algorithm runs the
// same CPU product (gemm.h); algorithm settings are kept and change nothing. Epilogues that
// produce auxiliary outputs or gradients, fp8 scaling factors and vector pointer modes are
// refused with CUBLAS_STATUS_NOT_SUPPORTED.
#include <cublasLt.h>

#include "element_types.h"
#include "gemm.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

using namespace streamrace::emu::blas;

namespace {

struct Layout {
  cudaDataType type = CUDA_R_32F;
  cublasLtOrder_t order = CUBLASLT_ORDER_COL;
  std::uint64_t rows = 0;
  std::uint64_t columns = 0;
  std::int64_t ld = 0;
  std::int32_t batchCount = 1;
  std::int64_t batchStride = 0;
};

struct MatmulDescription {
  cublasComputeType_t computeType = CUBLAS_COMPUTE_32F;
  cudaDataType scaleType = CUDA_R_32F;
  cublasLtPointerMode_t pointerMode = CUBLASLT_POINTER_MODE_HOST;
  cublasOperation_t transa = CUBLAS_OP_N;
  cublasOperation_t transb = CUBLAS_OP_N;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void* bias = nullptr;
  std::int32_t biasType = -1; // unset: D's type
  bool scaled = false;        // an fp8 scaling factor was given
};

struct Preference {
  std::uint64_t maxWorkspaceBytes = 0;
};

static_assert(sizeof(Layout) <= sizeof(cublasLtMatrixLayoutOpaque_t));
static_assert(sizeof(MatmulDescription) <= sizeof(cublasLtMatmulDescOpaque_t));
static_assert(sizeof(Preference) <= sizeof(cublasLtMatmulPreferenceOpaque_t));

// The state kept in an opaque descriptor, read and written by value.
template <typename State, typename Opaque> State read(const Opaque* opaque) {
  static_assert(std::is_trivially_copyable_v<State>);
  State state;
  std::memcpy(static_cast<void*>(&state), opaque, sizeof state);
  return state;
}

template <typename State, typename Opaque> void write(Opaque* opaque, const State& state) {
  std::memcpy(opaque, &state, sizeof state);
}

template <typename Opaque, typename State> cublasStatus_t create(Opaque** out, const State& state) {
  if (out == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  *out = std::make_unique<Opaque>().release();
  write(*out, state);
  return CUBLAS_STATUS_SUCCESS;
}

template <typename Opaque> cublasStatus_t destroy(Opaque* opaque) {
  std::unique_ptr<Opaque> owned(opaque);
  return CUBLAS_STATUS_SUCCESS;
}

template <typename Value>
cublasStatus_t setValue(Value& field, const void* buffer, std::size_t size) {
  if (buffer == nullptr || size != sizeof(Value)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  std::memcpy(&field, buffer, sizeof(Value));
  return CUBLAS_STATUS_SUCCESS;
}

template <typename Value>
cublasStatus_t getValue(const Value& field, void* buffer, std::size_t size, std::size_t* written) {
  if (size == 0 && written != nullptr) {
    *written = sizeof(Value);
    return CUBLAS_STATUS_SUCCESS;
  }
  if (buffer == nullptr || size < sizeof(Value)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  std::memcpy(buffer, &field, sizeof(Value));
  if (written != nullptr) {
    *written = sizeof(Value);
  }
  return CUBLAS_STATUS_SUCCESS;
}

bool supportedEpilogue(cublasLtEpilogue_t epilogue) {
  switch (epilogue) {
  case CUBLASLT_EPILOGUE_DEFAULT:
  case CUBLASLT_EPILOGUE_RELU:
  case CUBLASLT_EPILOGUE_BIAS:
  case CUBLASLT_EPILOGUE_RELU_BIAS:
  case CUBLASLT_EPILOGUE_GELU:
  case CUBLASLT_EPILOGUE_GELU_BIAS:
    return true;
  default:
    return false;
  }
}

MatrixView view(const void* data, const Layout& layout, cublasOperation_t operation) {
  MatrixView matrix;
  matrix.data = data;
  matrix.type = layout.type;
  const bool rowMajor = layout.order == CUBLASLT_ORDER_ROW;
  matrix.rowStride = rowMajor ? layout.ld : 1;
  matrix.columnStride = rowMajor ? 1 : layout.ld;
  matrix.batchStride = layout.batchStride;
  matrix.transposed = operation != CUBLAS_OP_N;
  matrix.conjugated = operation == CUBLAS_OP_C;
  return matrix;
}

// The product a descriptor and four layouts describe, or why it cannot run here.
cublasStatus_t describe(cublasLtMatmulDesc_t descriptor, cublasLtMatrixLayout_t aLayout,
                        cublasLtMatrixLayout_t bLayout, cublasLtMatrixLayout_t cLayout,
                        cublasLtMatrixLayout_t dLayout, GemmProblem& problem) {
  if (descriptor == nullptr || aLayout == nullptr || bLayout == nullptr || cLayout == nullptr ||
      dLayout == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const auto operation = read<MatmulDescription>(descriptor);
  const auto a = read<Layout>(aLayout);
  const auto b = read<Layout>(bLayout);
  const auto c = read<Layout>(cLayout);
  const auto d = read<Layout>(dLayout);
  if (!supportedEpilogue(operation.epilogue) || operation.scaled ||
      (operation.pointerMode != CUBLASLT_POINTER_MODE_HOST &&
       operation.pointerMode != CUBLASLT_POINTER_MODE_DEVICE)) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  for (const Layout* layout : {&a, &b, &c, &d}) {
    if (elementSize(layout->type) == 0 ||
        (layout->order != CUBLASLT_ORDER_COL && layout->order != CUBLASLT_ORDER_ROW)) {
      return CUBLAS_STATUS_NOT_SUPPORTED;
    }
  }
  const std::uint64_t k = operation.transa == CUBLAS_OP_N ? a.columns : a.rows;
  const std::uint64_t aRows = operation.transa == CUBLAS_OP_N ? a.rows : a.columns;
  const std::uint64_t bRows = operation.transb == CUBLAS_OP_N ? b.rows : b.columns;
  const std::uint64_t bColumns = operation.transb == CUBLAS_OP_N ? b.columns : b.rows;
  if (aRows != d.rows || bRows != k || bColumns != d.columns || c.rows != d.rows ||
      c.columns != d.columns) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const bool withBias = (operation.epilogue & CUBLASLT_EPILOGUE_BIAS) == CUBLASLT_EPILOGUE_BIAS;
  problem.m = static_cast<std::int64_t>(d.rows);
  problem.n = static_cast<std::int64_t>(d.columns);
  problem.k = static_cast<std::int64_t>(k);
  problem.batch = d.batchCount;
  problem.a = view(nullptr, a, operation.transa);
  problem.b = view(nullptr, b, operation.transb);
  problem.c = view(nullptr, c, CUBLAS_OP_N);
  problem.d = view(nullptr, d, CUBLAS_OP_N);
  problem.bias = withBias ? operation.bias : nullptr;
  problem.biasType =
      operation.biasType >= 0 ? static_cast<cudaDataType>(operation.biasType) : d.type;
  problem.activation =
      (operation.epilogue & CUBLASLT_EPILOGUE_RELU) == CUBLASLT_EPILOGUE_RELU   ? Activation::Relu
      : (operation.epilogue & CUBLASLT_EPILOGUE_GELU) == CUBLASLT_EPILOGUE_GELU ? Activation::Gelu
                                                                                : Activation::None;
  if (withBias && problem.bias == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace

extern "C" {

size_t cublasLtGetVersion(void) {
  return CUBLAS_VERSION;
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t* lightHandle) {
  if (lightHandle == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  // The handle carries no state: every call names its own stream and workspace.
  static char context;
  *lightHandle = reinterpret_cast<cublasLtHandle_t>(&context);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle) {
  return lightHandle != nullptr ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* matLayout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld) {
  return create(matLayout, Layout{type, CUBLASLT_ORDER_COL, rows, cols, ld, 1, 0});
}

cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t matLayout, size_t size,
                                                 cudaDataType type, uint64_t rows, uint64_t cols,
                                                 int64_t ld) {
  if (matLayout == nullptr || size < sizeof(Layout)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  write(matLayout, Layout{type, CUBLASLT_ORDER_COL, rows, cols, ld, 1, 0});
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout) {
  return destroy(matLayout);
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr,
                                                const void* buf, size_t sizeInBytes) {
  if (matLayout == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  auto layout = read<Layout>(matLayout);
  cublasStatus_t status = CUBLAS_STATUS_INVALID_VALUE;
  switch (attr) {
  case CUBLASLT_MATRIX_LAYOUT_TYPE: {
    std::uint32_t type = 0;
    status = setValue(type, buf, sizeInBytes);
    layout.type = static_cast<cudaDataType>(type);
    break;
  }
  case CUBLASLT_MATRIX_LAYOUT_ORDER: {
    std::int32_t order = 0;
    status = setValue(order, buf, sizeInBytes);
    layout.order = static_cast<cublasLtOrder_t>(order);
    break;
  }
  case CUBLASLT_MATRIX_LAYOUT_ROWS:
    status = setValue(layout.rows, buf, sizeInBytes);
    break;
  case CUBLASLT_MATRIX_LAYOUT_COLS:
    status = setValue(layout.columns, buf, sizeInBytes);
    break;
  case CUBLASLT_MATRIX_LAYOUT_LD:
    status = setValue(layout.ld, buf, sizeInBytes);
    break;
  case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
    status = setValue(layout.batchCount, buf, sizeInBytes);
    break;
  case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
    status = setValue(layout.batchStride, buf, sizeInBytes);
    break;
  default:
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  write(matLayout, layout);
  return status;
}

cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr, void* buf,
                                                size_t sizeInBytes, size_t* sizeWritten) {
  if (matLayout == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const auto layout = read<Layout>(matLayout);
  switch (attr) {
  case CUBLASLT_MATRIX_LAYOUT_TYPE:
    return getValue(static_cast<std::uint32_t>(layout.type), buf, sizeInBytes, sizeWritten);
  case CUBLASLT_MATRIX_LAYOUT_ORDER:
    return getValue(static_cast<std::int32_t>(layout.order), buf, sizeInBytes, sizeWritten);
  case CUBLASLT_MATRIX_LAYOUT_ROWS:
    return getValue(layout.rows, buf, sizeInBytes, sizeWritten);
  case CUBLASLT_MATRIX_LAYOUT_COLS:
    return getValue(layout.columns, buf, sizeInBytes, sizeWritten);
  case CUBLASLT_MATRIX_LAYOUT_LD:
    return getValue(layout.ld, buf, sizeInBytes, sizeWritten);
  case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
    return getValue(layout.batchCount, buf, sizeInBytes, sizeWritten);
  case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
    return getValue(layout.batchStride, buf, sizeInBytes, sizeWritten);
  default:
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* matmulDesc,
                                        cublasComputeType_t computeType, cudaDataType_t scaleType) {
  MatmulDescription description;
  description.computeType = computeType;
  description.scaleType = scaleType;
  return create(matmulDesc, description);
}

cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t matmulDesc, size_t size,
                                               cublasComputeType_t computeType,
                                               cudaDataType_t scaleType) {
  if (matmulDesc == nullptr || size < sizeof(MatmulDescription)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  MatmulDescription description;
  description.computeType = computeType;
  description.scaleType = scaleType;
  write(matmulDesc, description);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc) {
  return destroy(matmulDesc);
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                              cublasLtMatmulDescAttributes_t attr, const void* buf,
                                              size_t sizeInBytes) {
  if (matmulDesc == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  auto description = read<MatmulDescription>(matmulDesc);
  std::int32_t word = 0;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  switch (attr) {
  case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE:
    status = setValue(word, buf, sizeInBytes);
    description.computeType = static_cast<cublasComputeType_t>(word);
    break;
  case CUBLASLT_MATMUL_DESC_SCALE_TYPE:
    status = setValue(word, buf, sizeInBytes);
    description.scaleType = static_cast<cudaDataType>(word);
    break;
  case CUBLASLT_MATMUL_DESC_POINTER_MODE:
    status = setValue(word, buf, sizeInBytes);
    description.pointerMode = static_cast<cublasLtPointerMode_t>(word);
    break;
  case CUBLASLT_MATMUL_DESC_TRANSA:
    status = setValue(word, buf, sizeInBytes);
    description.transa = static_cast<cublasOperation_t>(word);
    break;
  case CUBLASLT_MATMUL_DESC_TRANSB:
    status = setValue(word, buf, sizeInBytes);
    description.transb = static_cast<cublasOperation_t>(word);
    break;
  case CUBLASLT_MATMUL_DESC_EPILOGUE:
    status = setValue(word, buf, sizeInBytes);
    description.epilogue = static_cast<cublasLtEpilogue_t>(word);
    break;
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
    status = setValue(description.bias, buf, sizeInBytes);
    break;
  case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
    status = setValue(description.biasType, buf, sizeInBytes);
    break;
  case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_C_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_D_SCALE_POINTER: {
    const void* pointer = nullptr;
    status = setValue(pointer, buf, sizeInBytes);
    description.scaled = description.scaled || pointer != nullptr;
    break;
  }
  default:
    // Settings that tune a GPU kernel (SM count, fast accumulation, ...) change nothing here.
    if (buf == nullptr) {
      return CUBLAS_STATUS_INVALID_VALUE;
    }
    break;
  }
  write(matmulDesc, description);
  return status;
}

cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                              cublasLtMatmulDescAttributes_t attr, void* buf,
                                              size_t sizeInBytes, size_t* sizeWritten) {
  if (matmulDesc == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const auto description = read<MatmulDescription>(matmulDesc);
  switch (attr) {
  case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE:
    return getValue(static_cast<std::int32_t>(description.computeType), buf, sizeInBytes,
                    sizeWritten);
  case CUBLASLT_MATMUL_DESC_SCALE_TYPE:
    return getValue(static_cast<std::int32_t>(description.scaleType), buf, sizeInBytes,
                    sizeWritten);
  case CUBLASLT_MATMUL_DESC_POINTER_MODE:
    return getValue(static_cast<std::int32_t>(description.pointerMode), buf, sizeInBytes,
                    sizeWritten);
  case CUBLASLT_MATMUL_DESC_TRANSA:
    return getValue(static_cast<std::int32_t>(description.transa), buf, sizeInBytes, sizeWritten);
  case CUBLASLT_MATMUL_DESC_TRANSB:
    return getValue(static_cast<std::int32_t>(description.transb), buf, sizeInBytes, sizeWritten);
  case CUBLASLT_MATMUL_DESC_EPILOGUE:
    return getValue(static_cast<std::int32_t>(description.epilogue), buf, sizeInBytes, sizeWritten);
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
    return getValue(description.bias, buf, sizeInBytes, sizeWritten);
  default:
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
  return create(pref, Preference{});
}

cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size) {
  if (pref == nullptr || size < sizeof(Preference)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  write(pref, Preference{});
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  return destroy(pref);
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void* buf, size_t sizeInBytes) {
  if (pref == nullptr || buf == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  auto preference = read<Preference>(pref);
  if (attr == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES) {
    if (cublasStatus_t status = setValue(preference.maxWorkspaceBytes, buf, sizeInBytes);
        status != CUBLAS_STATUS_SUCCESS) {
      return status;
    }
    write(pref, preference);
  }
  return CUBLAS_STATUS_SUCCESS;
}

// One algorithm, needing no workspace, for every product the emulator can run.
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc, cublasLtMatrixLayout_t Adesc,
    cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
    cublasLtMatmulPreference_t preference, int requestedAlgoCount,
    cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int* returnAlgoCount) {
  if (lightHandle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (preference == nullptr || requestedAlgoCount < 1 || heuristicResultsArray == nullptr ||
      returnAlgoCount == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  GemmProblem problem;
  *returnAlgoCount = 0;
  if (cublasStatus_t status = describe(operationDesc, Adesc, Bdesc, Cdesc, Ddesc, problem);
      status != CUBLAS_STATUS_SUCCESS) {
    return status;
  }
  heuristicResultsArray[0] = cublasLtMatmulHeuristicResult_t{};
  heuristicResultsArray[0].state = CUBLAS_STATUS_SUCCESS;
  heuristicResultsArray[0].wavesCount = 1.0f;
  *returnAlgoCount = 1;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t lightHandle, cublasComputeType_t,
                                      cudaDataType_t, cudaDataType_t, cudaDataType_t,
                                      cudaDataType_t, cudaDataType_t, int algoId,
                                      cublasLtMatmulAlgo_t* algo) {
  if (lightHandle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (algo == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  *algo = cublasLtMatmulAlgo_t{};
  algo->data[CUBLASLT_ALGO_CONFIG_ID] = static_cast<std::uint64_t>(algoId);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t lightHandle,
                                       cublasLtMatmulDesc_t operationDesc,
                                       cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                       cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                       const cublasLtMatmulAlgo_t* algo,
                                       cublasLtMatmulHeuristicResult_t* result) {
  if (lightHandle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (algo == nullptr || result == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  GemmProblem problem;
  const cublasStatus_t status = describe(operationDesc, Adesc, Bdesc, Cdesc, Ddesc, problem);
  const cublasLtMatmulAlgo_t checked = *algo;
  *result = cublasLtMatmulHeuristicResult_t{};
  result->algo = checked;
  result->state = status;
  result->wavesCount = 1.0f;
  return status;
}

// An algorithm's configuration: one 64-bit slot per attribute, kept as set.
cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t* algo,
                                                    cublasLtMatmulAlgoConfigAttributes_t attr,
                                                    const void* buf, size_t sizeInBytes) {
  const auto slot = static_cast<std::size_t>(attr);
  if (algo == nullptr || buf == nullptr || slot >= std::size(algo->data) ||
      sizeInBytes > sizeof(std::uint64_t)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  algo->data[slot] = 0;
  std::memcpy(&algo->data[slot], buf, sizeInBytes);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t* algo,
                                                    cublasLtMatmulAlgoConfigAttributes_t attr,
                                                    void* buf, size_t sizeInBytes,
                                                    size_t* sizeWritten) {
  const auto slot = static_cast<std::size_t>(attr);
  if (algo == nullptr || slot >= std::size(algo->data)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (sizeInBytes == 0 && sizeWritten != nullptr) {
    *sizeWritten = sizeof(std::uint32_t);
    return CUBLAS_STATUS_SUCCESS;
  }
  if (buf == nullptr || sizeInBytes > sizeof(std::uint64_t)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  std::memcpy(buf, &algo->data[slot], sizeInBytes);
  if (sizeWritten != nullptr) {
    *sizeWritten = sizeInBytes;
  }
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                              const void* alpha, const void* A, cublasLtMatrixLayout_t Adesc,
                              const void* B, cublasLtMatrixLayout_t Bdesc, const void* beta,
                              const void* C, cublasLtMatrixLayout_t Cdesc, void* D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t*, void*,
                              size_t, cudaStream_t stream) {
  if (lightHandle == nullptr) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  if (alpha == nullptr || beta == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  GemmProblem problem;
  if (cublasStatus_t status = describe(computeDesc, Adesc, Bdesc, Cdesc, Ddesc, problem);
      status != CUBLAS_STATUS_SUCCESS) {
    return status;
  }
  if (problem.m == 0 || problem.n == 0 || problem.batch == 0) {
    return CUBLAS_STATUS_SUCCESS;
  }
  const auto description = read<MatmulDescription>(computeDesc);
  const bool onDevice = description.pointerMode == CUBLASLT_POINTER_MODE_DEVICE;
  problem.a.data = A;
  problem.b.data = B;
  problem.c.data = C;
  problem.d.data = D;
  problem.alpha = scalarAt(alpha, description.scaleType, onDevice);
  problem.beta = scalarAt(beta, description.scaleType, onDevice);
  return enqueueGemm(problem, stream) == cudaSuccess ? CUBLAS_STATUS_SUCCESS
                                                     : CUBLAS_STATUS_EXECUTION_FAILED;
}

} // extern "C"
