// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Registering a CPU implementation for a CUDA kernel with the streamrace emulator.
//
// The emulator runs each kernel launch on the stream's worker thread. A kernel compiled by nvcc
// has only device code, which the emulator cannot run, so by default a launch is a no-op (logged
// once per kernel). A program that wants its kernels to have effects on the emulator registers a
// CPU function with the same parameters plus the launch geometry:
//
//   __global__ void scale(float *data, float factor, int n);
//   void scaleOnCpu(const StreamraceEmuLaunch &launch, float *data, float factor, int n) {
//     for (int i = 0; i < n; ++i) data[i] *= factor;
//   }
//   ...
//   streamrace_emulator::registerKernel<&scaleOnCpu>(scale);
//
// The program still builds against the real CUDA runtime and runs unchanged on a GPU: the
// registration looks the emulator up at run time and does nothing (returns false) without it.
// The emulator copies the arguments at launch time, as the real runtime does, so the CPU
// function sees the values of the launch even when it runs later.
#pragma once

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstddef>
#include <type_traits>
#include <utility>

extern "C" {

// The launch configuration a kernel sees through gridDim and blockDim.
struct StreamraceEmuLaunch {
  dim3 gridDim;
  dim3 blockDim;
  size_t sharedMem;
  cudaStream_t stream;
};

// `args[i]` points at a copy of the i-th kernel argument.
using StreamraceEmuKernelBody = void (*)(const StreamraceEmuLaunch* launch, void** args);

// Exported by the emulated libcudart.so.13 only. Returns 0 on success.
using StreamraceEmuRegisterKernelFn = int (*)(const void* kernel, StreamraceEmuKernelBody body,
                                              unsigned argCount, const size_t* argSizes);
}

#define STREAMRACE_EMU_REGISTER_KERNEL_SYMBOL "streamraceEmuRegisterKernel"

namespace streamrace_emulator {

namespace detail {

template <auto cpuImplementation, typename... Args, std::size_t... index>
void invokeWithArguments(const StreamraceEmuLaunch* launch, void** args,
                         std::index_sequence<index...>) {
  cpuImplementation(*launch, *static_cast<std::remove_cv_t<Args>*>(args[index])...);
}

template <auto cpuImplementation, typename... Args>
void invoke(const StreamraceEmuLaunch* launch, void** args) {
  invokeWithArguments<cpuImplementation, Args...>(launch, args, std::index_sequence_for<Args...>{});
}

} // namespace detail

// Returns true when running on the emulator and the registration took effect.
template <auto cpuImplementation, typename... Args> bool registerKernel(void (*kernel)(Args...)) {
  static_assert(
      std::is_invocable_v<decltype(cpuImplementation), const StreamraceEmuLaunch&, Args...>,
      "the CPU implementation must take (const StreamraceEmuLaunch &, <the kernel's "
      "parameters>...)");
  auto registerWithEmulator = reinterpret_cast<StreamraceEmuRegisterKernelFn>(
      dlsym(RTLD_DEFAULT, STREAMRACE_EMU_REGISTER_KERNEL_SYMBOL));
  if (registerWithEmulator == nullptr) {
    return false;
  }
  static constexpr size_t argumentSizes[sizeof...(Args) + 1] = {sizeof(Args)..., 0};
  return registerWithEmulator(reinterpret_cast<const void*>(kernel),
                              &detail::invoke<cpuImplementation, Args...>, sizeof...(Args),
                              argumentSizes) == 0;
}

} // namespace streamrace_emulator
