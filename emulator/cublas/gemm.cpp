// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "gemm.h"

#include "element_types.h"

#include <streamrace_emulator/kernel_registry.h>

#include <cmath>
#include <mutex>

// What nvcc-generated host code calls to give the runtime a module's kernels by name.
extern "C" {
void** __cudaRegisterFatBinary(void* fatCubin);
void __cudaRegisterFatBinaryEnd(void** fatCubinHandle);
void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                            const char* deviceName, int threadLimit, uint3* tid, uint3* bid,
                            dim3* bDim, dim3* gDim, int* wSize);
}

namespace streamrace::emu::blas {

namespace {

// The kernel's host stub: never called, its address names the kernel. Its parameters are what a
// launch passes: the operand pointers first, so a tool reading the launch sees them.
void emulatedGemmKernel(const void*, const void*, const void*, void*, const void*, GemmProblem) {}

constexpr char kKernelName[] = "emulated_cublas_gemm";

Value scalarValue(const Scalar& scalar) {
  if (scalar.device != nullptr) {
    return loadElement(scalar.type, scalar.device, 0);
  }
  return {scalar.real, scalar.imaginary};
}

const void* matrixOf(const MatrixView& view, std::int64_t entry) {
  if (view.pointerArray) {
    return static_cast<const void* const*>(view.data)[entry];
  }
  return static_cast<const std::byte*>(view.data) +
         entry * view.batchStride * std::int64_t(elementSize(view.type));
}

// Element (row, column) of op(X).
Value operandAt(const MatrixView& view, const void* matrix, std::int64_t row, std::int64_t column) {
  if (view.transposed) {
    std::swap(row, column);
  }
  const Value value =
      loadElement(view.type, matrix, row * view.rowStride + column * view.columnStride);
  return view.conjugated ? std::conj(value) : value;
}

Value activate(Activation activation, Value value) {
  switch (activation) {
  case Activation::Relu:
    return value.real() > 0 ? value : Value(0);
  case Activation::Gelu: {
    // The tanh approximation cuBLASLt's GELU epilogue computes.
    const double x = value.real();
    return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  }
  case Activation::None:
    break;
  }
  return value;
}

void runGemm(const GemmProblem& problem) {
  const Value alpha = scalarValue(problem.alpha);
  const Value beta = scalarValue(problem.beta);
  for (std::int64_t entry = 0; entry < problem.batch; ++entry) {
    const void* a = matrixOf(problem.a, entry);
    const void* b = matrixOf(problem.b, entry);
    const void* c = beta != Value(0) ? matrixOf(problem.c, entry) : nullptr;
    void* d = const_cast<void*>(matrixOf(problem.d, entry));
    for (std::int64_t column = 0; column < problem.n; ++column) {
      for (std::int64_t row = 0; row < problem.m; ++row) {
        Value sum = 0;
        for (std::int64_t inner = 0; inner < problem.k; ++inner) {
          sum += operandAt(problem.a, a, row, inner) * operandAt(problem.b, b, inner, column);
        }
        Value result = alpha * sum;
        if (c != nullptr) {
          result += beta * operandAt(problem.c, c, row, column);
        }
        if (problem.bias != nullptr) {
          result += loadElement(problem.biasType, problem.bias, row);
        }
        storeElement(problem.d.type, d, row * problem.d.rowStride + column * problem.d.columnStride,
                     activate(problem.activation, result));
      }
    }
  }
}

void gemmOnCpu(const StreamraceEmuLaunch&, const void*, const void*, const void*, void*,
               const void*, GemmProblem problem) {
  runGemm(problem);
}

// Registers the kernel with the runtime the way a CUDA library's start-up code does: its module,
// its name, and (the emulator's addition) the CPU body that computes it.
bool registerKernel() {
  static const bool registered = [] {
    static char module = 0;
    void** handle = __cudaRegisterFatBinary(&module);
    __cudaRegisterFunction(handle, reinterpret_cast<const char*>(&emulatedGemmKernel),
                           const_cast<char*>(kKernelName), kKernelName, -1, nullptr, nullptr,
                           nullptr, nullptr, nullptr);
    __cudaRegisterFatBinaryEnd(handle);
    return streamrace_emulator::registerKernel<&gemmOnCpu>(&emulatedGemmKernel);
  }();
  return registered;
}

} // namespace

Scalar scalarAt(const void* pointer, cudaDataType type, bool onDevice) {
  Scalar scalar;
  scalar.type = type;
  if (onDevice) {
    scalar.device = pointer;
    return scalar;
  }
  const Value value = loadElement(type, pointer, 0);
  scalar.real = value.real();
  scalar.imaginary = value.imag();
  return scalar;
}

cudaError_t enqueueGemm(const GemmProblem& problem, cudaStream_t stream) {
  if (!registerKernel()) {
    return cudaErrorInvalidDeviceFunction;
  }
  const void* a = problem.a.data;
  const void* b = problem.b.data;
  const void* c = problem.c.data;
  void* d = const_cast<void*>(problem.d.data);
  const void* bias = problem.bias;
  GemmProblem copy = problem;
  void* arguments[] = {&a, &b, &c, &d, &bias, &copy};
  return cudaLaunchKernel(reinterpret_cast<const void*>(&emulatedGemmKernel), dim3(1), dim3(1),
                          arguments, 0, stream);
}

} // namespace streamrace::emu::blas
