// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What libraries built on the runtime ask the driver (PyTorch's c10 and its NVRTC stub): entry
// points by name through cuGetProcAddress and cudaGetDriverEntryPointByVersion, primary context
// state before and after the runtime sets a device up, the current context and its stack,
// attributes, pointer questions, a 32-bit memset in stream order, error names, and the codes of
// what the emulator refuses. Built against the real toolkit (libcudart and the libcuda stub).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

#include "../../Inputs/check_call.h"

int main() {
  void* function = nullptr;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  CUresult result = cuGetProcAddress("cuMemGetAddressRange", &function, 13000, 0, &found);
  std::printf("cuGetProcAddress cuMemGetAddressRange: %d found=%d same=%d\n", int(result),
              int(found), int(function == reinterpret_cast<void*>(&cuMemGetAddressRange)));
  result = cuGetProcAddress("cuNoSuchFunction", &function, 13000, 0, &found);
  std::printf("cuGetProcAddress cuNoSuchFunction: %d found=%d\n", int(result), int(found));
  cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
  CHECK(cudaGetDriverEntryPointByVersion("cuDevicePrimaryCtxGetState", &function, 13000,
                                         cudaEnableDefault, &query));
  std::printf("runtime entry point: status=%d same=%d\n", int(query),
              int(function == reinterpret_cast<void*>(&cuDevicePrimaryCtxGetState)));
  CHECK(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &function, 13000, cudaEnableDefault,
                                         &query));
  std::printf("runtime entry point of an unknown name: status=%d\n", int(query));

  unsigned flags = 0;
  int active = -1;
  CUcontext context = nullptr;
  cuDevicePrimaryCtxGetState(1, &flags, &active);
  cuCtxGetCurrent(&context);
  std::printf("before any use: device 1 active=%d, current context %s\n", active,
              context == nullptr ? "none" : "set");
  CHECK(cudaSetDevice(1));
  CHECK(cudaFree(nullptr));
  cuDevicePrimaryCtxGetState(1, &flags, &active);
  cuCtxGetCurrent(&context);
  CUdevice device = -1;
  cuCtxGetDevice(&device);
  std::printf("after cudaFree(0): device 1 active=%d, current context of device %d\n", active,
              device);
  CUcontext primary0 = nullptr;
  cuDevicePrimaryCtxRetain(&primary0, 0);
  std::printf("push: %d\n", int(cuCtxPushCurrent(primary0)));
  int current = -1;
  CHECK(cudaGetDevice(&current));
  std::printf("runtime device after the push: %d\n", current);
  CUcontext popped = nullptr;
  result = cuCtxPopCurrent(&popped);
  std::printf("pop: %d popped device 0's: %d\n", int(result), int(popped == primary0));
  CHECK(cudaGetDevice(&current));
  result = cuCtxPopCurrent(&popped);
  std::printf("runtime device after the pop: %d; pop again: %d\n", current, int(result));

  int major = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
  std::printf("compute capability major: %d\n", major);

  void* buffer = nullptr;
  CHECK(cudaMalloc(&buffer, 4096));
  CUdeviceptr base = 0;
  size_t size = 0;
  cuMemGetAddressRange(&base, &size,
                       reinterpret_cast<CUdeviceptr>(static_cast<char*>(buffer) + 100));
  CUmemorytype type = CU_MEMORYTYPE_HOST;
  cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                        reinterpret_cast<CUdeviceptr>(buffer));
  std::printf("address range: base=%d size=%zu device memory=%d\n",
              int(base == reinterpret_cast<CUdeviceptr>(buffer)), size,
              int(type == CU_MEMORYTYPE_DEVICE));
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreate(&stream));
  result = cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(buffer), 0xdeadbeef, 1024,
                            reinterpret_cast<CUstream>(stream));
  std::vector<unsigned> words(1024);
  CHECK(cudaMemcpyAsync(words.data(), buffer, 4096, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("cuMemsetD32Async: %d first=%x last=%x\n", int(result), words.front(), words.back());

  const char* text = nullptr;
  cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &text);
  std::printf("error name: %s\n", text);
  cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &text);
  std::printf("error string: %s\n", text);
  CUmodule module = nullptr;
  std::printf("refused: module load %d, reserve %d\n", int(cuModuleLoadData(&module, buffer)),
              int(cuMemAddressReserve(&base, 1 << 21, 0, 0, 0)));
  return 0;
}
