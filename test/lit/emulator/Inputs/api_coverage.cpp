// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Calls the emulator's less common entry points and prints what each did, for
// test/lit/emulator/api_coverage.test: pitched and 3D memory with 3D copies and sets, device
// limits, stream attributes, attaching managed memory, the profiler's start and stop, allocation
// from a memory pool, and functions the emulator does not implement (called through dlsym, as a
// program built against any version of the libraries would reach them).
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <vector>

#include "../../Inputs/check_call.h"

namespace {

int volumes() {
  // A 3D volume of 3 slices of 4 rows of 40 bytes; the copy writes the 2x2x2 block at (8, 1, 1).
  const cudaExtent extent = make_cudaExtent(40, 4, 3);
  cudaPitchedPtr volume{};
  CHECK(cudaMalloc3D(&volume, extent));
  std::printf("malloc3d: pitch %s, xsize %zu, ysize %zu\n",
              volume.pitch >= 40 ? "covers a row" : "TOO SMALL", volume.xsize, volume.ysize);
  CHECK(cudaMemset3D(volume, 0, extent));
  std::vector<unsigned char> host(2 * 2 * 2, 7);
  cudaMemcpy3DParms up{};
  up.srcPtr = make_cudaPitchedPtr(host.data(), 2, 2, 2);
  up.dstPtr = volume;
  up.dstPos = make_cudaPos(8, 1, 1);
  up.extent = make_cudaExtent(2, 2, 2);
  up.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&up));
  std::vector<unsigned char> back(volume.pitch * 4 * 3, 0xff);
  cudaMemcpy3DParms down{};
  down.srcPtr = volume;
  down.dstPtr = make_cudaPitchedPtr(back.data(), volume.pitch, 40, 4);
  down.extent = extent;
  down.kind = cudaMemcpyDeviceToHost;
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreate(&stream));
  CHECK(cudaMemcpy3DAsync(&down, stream));
  CHECK(cudaStreamSynchronize(stream));
  int sevens = 0;
  for (unsigned char byte : back)
    sevens += byte == 7;
  const unsigned char at = back[(1 * 4 + 1) * volume.pitch + 8];
  std::printf("memcpy3d: %d bytes of 7, byte at (8,1,1) is %d\n", sevens, at);
  CHECK(cudaMemset3DAsync(volume, 1, make_cudaExtent(40, 4, 1), stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemcpy3D(&down));
  int ones = 0;
  for (unsigned char byte : back)
    ones += byte == 1;
  std::printf("memset3d: %d bytes of 1\n", ones);

  cudaMemcpy3DParms too_tall = up;
  too_tall.extent = make_cudaExtent(2, 3, 2); // 3 rows of a 2-row host slice
  std::printf("memcpy3d too tall: %s\n", cudaGetErrorName(cudaMemcpy3D(&too_tall)));
  cudaGetLastError();
  CHECK(cudaFree(volume.ptr));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}

int settings() {
  std::size_t heap = 0;
  CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap * 2));
  std::size_t doubled = 0;
  CHECK(cudaDeviceGetLimit(&doubled, cudaLimitMallocHeapSize));
  std::printf("limit: heap %s\n", doubled == heap * 2 ? "doubled" : "UNCHANGED");
  std::printf("limit unknown: %s\n",
              cudaGetErrorName(cudaDeviceSetLimit(static_cast<cudaLimit>(99), 1)));
  cudaGetLastError();
  // L2 persistence, as programs that tune it use it (cuda-samples' simpleAttributes).
  cudaDeviceProp properties{};
  CHECK(cudaGetDeviceProperties(&properties, 0));
  int windowBytes = 0;
  CHECK(cudaDeviceGetAttribute(&windowBytes, cudaDevAttrMaxAccessPolicyWindowSize, 0));
  std::printf("persisting L2: %s of %d bytes, windows up to %d bytes\n",
              properties.persistingL2CacheMaxSize > 0 ? "some" : "NONE", properties.l2CacheSize,
              windowBytes);
  CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, properties.persistingL2CacheMaxSize));
  CHECK(cudaCtxResetPersistingL2Cache());

  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, -1));
  cudaStreamAttrValue value{};
  CHECK(cudaStreamGetAttribute(stream, cudaStreamAttributePriority, &value));
  std::printf("stream attribute: priority %d\n", value.priority);
  value.syncPolicy = cudaSyncPolicySpin;
  CHECK(cudaStreamSetAttribute(stream, cudaStreamAttributeSynchronizationPolicy, &value));
  cudaStreamAttrValue read{};
  CHECK(cudaStreamGetAttribute(stream, cudaStreamAttributeSynchronizationPolicy, &read));
  std::printf("stream attribute: sync policy %s\n",
              read.syncPolicy == cudaSyncPolicySpin ? "spin" : "NOT SET");

  float* managed = nullptr;
  float* device = nullptr;
  CHECK(cudaMallocManaged(&managed, 256));
  CHECK(cudaMalloc(&device, 256));
  CHECK(cudaStreamAttachMemAsync(stream, managed, 0, cudaMemAttachSingle));
  std::printf("attach device memory: %s\n",
              cudaGetErrorName(cudaStreamAttachMemAsync(stream, device, 0, cudaMemAttachSingle)));
  cudaGetLastError();
  CHECK(cudaProfilerStart());
  CHECK(cudaProfilerStop());

  cudaMemPool_t pool = nullptr;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  void* pooled = nullptr;
  CHECK(cudaMallocFromPoolAsync(&pooled, 4096, pool, stream));
  CHECK(cudaMemsetAsync(pooled, 0, 4096, stream));
  CHECK(cudaFreeAsync(pooled, stream));
  std::printf("pool without a pool: %s\n",
              cudaGetErrorName(cudaMallocFromPoolAsync(&pooled, 4096, nullptr, stream)));
  cudaGetLastError();
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaFree(managed));
  CHECK(cudaFree(device));
  CHECK(cudaStreamDestroy(stream));
  std::printf("settings done\n");
  return 0;
}

// A function the emulated library does not implement, reached through dlsym.
int not_emulated(const char* library, const char* name) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) handle = dlopen(library, RTLD_NOW);
  void* symbol = handle != nullptr ? dlsym(handle, name) : nullptr;
  if (symbol == nullptr) {
    std::printf("%s: MISSING from %s\n", name, library);
    return 1;
  }
  using AnyCall = int (*)();
  const int result = reinterpret_cast<AnyCall>(symbol)();
  std::printf("%s returned %d\n", name, result);
  return 0;
}

} // namespace

int main() {
  if (volumes() != 0 || settings() != 0) return 1;
  int missing = 0;
  // Twice: the line naming the function is printed once.
  missing += not_emulated("libcudart.so.13", "cudaMallocArray");
  missing += not_emulated("libcudart.so.13", "cudaMallocArray");
  missing += not_emulated("libcuda.so.1", "cuArrayCreate_v2");
  missing += not_emulated("libnccl.so.2", "ncclLLA2ACalcSlots");
  missing += not_emulated("libcupti.so.13", "cuptiPCSamplingEnable");
  // Conditional graph nodes: their conditions are set by device code, which does not run here.
  cudaGraph_t graph = nullptr;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphConditionalHandle handle{};
  std::printf("conditional handle: %s\n",
              cudaGetErrorName(cudaGraphConditionalHandleCreate(&handle, graph, 1, 0)));
  cudaGraphNodeParams conditional{};
  conditional.type = cudaGraphNodeTypeConditional;
  conditional.conditional.handle = handle;
  conditional.conditional.type = cudaGraphCondTypeIf;
  conditional.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  std::printf("conditional node: %s\n",
              cudaGetErrorName(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &conditional)));
  cudaGetLastError();
  CHECK(cudaGraphDestroy(graph));
  return missing == 0 ? 0 : 1;
}
