// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A driver that knows one kernel handle, loaded as libcuda.so.1 (its soname) by the in-process
// tracer tests: what a program whose runtime is linked in statically offers the tracer. The
// handle is heap memory, as the driver's CUkernels are; the kernel takes a pointer and an int.
#include <array>
#include <cstddef>
#include <memory>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidValue = 1;    // CUDA_ERROR_INVALID_VALUE: no parameter at that index
constexpr int kInvalidHandle = 400; // CUDA_ERROR_INVALID_HANDLE

struct Parameter {
  std::size_t offset;
  std::size_t size;
};
constexpr std::array<Parameter, 2> kParameters{{{0, sizeof(void*)}, {sizeof(void*), sizeof(int)}}};

const void* known_kernel() {
  static const auto kernel = std::make_unique<int>(0);
  return kernel.get();
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) const void* streamrace_fake_kernel_handle() {
  return known_kernel();
}

__attribute__((visibility("default"))) int cuKernelGetParamInfo(const void* kernel,
                                                                std::size_t index,
                                                                std::size_t* offset,
                                                                std::size_t* size) {
  if (kernel != known_kernel()) return kInvalidHandle;
  if (index >= kParameters.size()) return kInvalidValue;
  *offset = kParameters[index].offset;
  *size = kParameters[index].size;
  return kSuccess;
}
}
