// Driver calls a program makes directly, on the emulator's libcuda.so.1 stand-in: a CUfunction
// from cudaGetFuncBySymbol, its name and parameter layout from the driver, and a cuLaunchKernel
// that runs the kernel's CPU implementation on its stream; plus the driver's answers to bad
// handles, indices and argument forms. Built by nvcc with -cudart shared against the real
// toolkit and its libcuda stub.
#include <cuda.h>
#include <cuda_runtime.h>
#include <streamrace_emulator/kernel_registry.h>

#include <cstdio>

#include "../../Inputs/check_call.h"

__global__ void scale(float* data, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    data[i] *= factor;
  }
}

void scaleOnCpu(const StreamraceEmuLaunch&, float* data, float factor, int n) {
  for (int i = 0; i < n; ++i) {
    data[i] *= factor;
  }
}

int main() {
  streamrace_emulator::registerKernel<&scaleOnCpu>(scale);
  std::printf("cuInit: %d\n", static_cast<int>(cuInit(0)));
  cudaFunction_t runtimeFunction = nullptr;
  CHECK(cudaGetFuncBySymbol(&runtimeFunction, reinterpret_cast<const void*>(scale)));
  CUfunction function = reinterpret_cast<CUfunction>(runtimeFunction);

  const char* name = nullptr;
  const CUresult named = cuFuncGetName(&name, function);
  std::printf("cuFuncGetName: %d %s\n", static_cast<int>(named), name);
  for (size_t index = 0; index < 4; ++index) {
    size_t offset = 0;
    size_t size = 0;
    const CUresult result = cuFuncGetParamInfo(function, index, &offset, &size);
    std::printf("cuFuncGetParamInfo %zu: %d offset=%zu size=%zu\n", index, static_cast<int>(result),
                offset, size);
  }

  constexpr int n = 256;
  float host[n];
  for (float& value : host) {
    value = 2.0f;
  }
  float* data = nullptr;
  cudaStream_t stream = nullptr;
  CHECK(cudaMalloc(&data, sizeof host));
  CHECK(cudaStreamCreate(&stream));
  CHECK(cudaMemcpyAsync(data, host, sizeof host, cudaMemcpyHostToDevice, stream));
  float factor = 3.0f;
  int count = n;
  void* arguments[] = {&data, &factor, &count};
  std::printf("cuLaunchKernel: %d\n", static_cast<int>(cuLaunchKernel(
                                          function, 2, 1, 1, 128, 1, 1, 0,
                                          reinterpret_cast<CUstream>(stream), arguments, nullptr)));
  CHECK(cudaMemcpyAsync(host, data, sizeof host, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("after the driver launch: %.1f %.1f\n", static_cast<double>(host[0]),
              static_cast<double>(host[n - 1]));

  int notAKernel = 0;
  std::printf("unknown function: launch %d, name %d\n",
              static_cast<int>(cuLaunchKernel(reinterpret_cast<CUfunction>(&notAKernel), 1, 1, 1, 1,
                                              1, 1, 0, nullptr, arguments, nullptr)),
              static_cast<int>(cuFuncGetName(&name, reinterpret_cast<CUfunction>(&notAKernel))));
  // The same kernel with its arguments packed in one buffer, at the offsets cuFuncGetParamInfo
  // gives (pointer at 0, float at 8, int at 12).
  struct {
    float* data;
    float factor;
    int count;
  } buffer{data, 0.5f, n};
  std::size_t bufferSize = sizeof buffer;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buffer, CU_LAUNCH_PARAM_BUFFER_SIZE,
                   &bufferSize, CU_LAUNCH_PARAM_END};
  std::printf("extra: %d\n",
              static_cast<int>(cuLaunchKernel(function, 2, 1, 1, 128, 1, 1, 0,
                                              reinterpret_cast<CUstream>(stream), nullptr, extra)));
  CHECK(cudaMemcpyAsync(host, data, sizeof host, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("after the packed launch: %.1f %.1f\n", static_cast<double>(host[0]),
              static_cast<double>(host[n - 1]));
  std::size_t tooSmall = 8;
  void* truncated[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buffer, CU_LAUNCH_PARAM_BUFFER_SIZE,
                       &tooSmall, CU_LAUNCH_PARAM_END};
  void* unsized[] = {CU_LAUNCH_PARAM_END};
  std::printf(
      "extra too small: %d, without a size: %d, with kernelParams too: %d\n",
      static_cast<int>(cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, truncated)),
      static_cast<int>(cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, unsized)),
      static_cast<int>(cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, arguments, extra)));
  return 0;
}
