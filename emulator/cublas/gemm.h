// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One general matrix product, D = alpha * op(A) * op(B) + beta * C, then an optional bias and
// activation, over a batch: the operation behind every cuBLAS and cuBLASLt call the emulator
// implements (gemm, gemv and dot are its shapes). It is enqueued as a kernel launch on the
// caller's stream through the emulated runtime, so it runs in stream order with the kernels
// around it and a CUDA tool sees it as a launch whose arguments are the operand pointers.
#pragma once

#include <cuda_runtime_api.h>
#include <library_types.h>

#include <cstdint>

namespace streamrace::emu::blas {

// A matrix in device memory: element (row, column) of batch entry b is at
// data + b * batchStride + row * rowStride + column * columnStride (in elements), or, with
// `pointerArray`, in the b-th matrix of the device array of pointers at `data`.
struct MatrixView {
  const void* data = nullptr;
  cudaDataType type = CUDA_R_32F;
  std::int64_t rowStride = 1;
  std::int64_t columnStride = 0;
  std::int64_t batchStride = 0;
  bool pointerArray = false;
  bool transposed = false; // op(X) = X^T
  bool conjugated = false; // op(X) = X^H (with transposed)
};

// alpha or beta: a value read at the call (host pointer mode) or, from `device`, when the
// product runs (device pointer mode).
struct Scalar {
  double real = 0;
  double imaginary = 0;
  const void* device = nullptr;
  cudaDataType type = CUDA_R_32F;
};

enum class Activation : std::uint8_t { None, Relu, Gelu };

struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  MatrixView a, b, c, d; // c is read only when beta is not zero; d is written
  Scalar alpha, beta;
  const void* bias = nullptr; // m elements, added to every column of D
  cudaDataType biasType = CUDA_R_32F;
  Activation activation = Activation::None;
};

// The scalar behind a host or device pointer of `type`.
Scalar scalarAt(const void* pointer, cudaDataType type, bool onDevice);

// Enqueues the product on `stream`; its result, or why it could not be enqueued.
cudaError_t enqueueGemm(const GemmProblem& problem, cudaStream_t stream);

} // namespace streamrace::emu::blas
