// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Stream capture into graphs (with a fork and join through events) and kernel launches with
// registered CPU implementations.
#include "emulator_test_support.h"

#include <streamrace_emulator/kernel_registry.h>

#include <sys/mman.h>

#include <vector>

namespace streamrace::emu::test {
namespace {

TEST(Capture, AForkJoinRegionRunsOnlyWhenTheGraphIsLaunchedAndKeepsItsEdges) {
  cudaStream_t origin, branch;
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&branch, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  ASSERT_CUDA_OK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  ASSERT_CUDA_OK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  unsigned char* device = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&device), 64));
  ASSERT_CUDA_OK(cudaMemset(device, 0, 64));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());

  Flag branchWork;
  Observation joined{&branchWork};
  ASSERT_CUDA_OK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  ASSERT_CUDA_OK(cudaStreamIsCapturing(origin, &status));
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  ASSERT_CUDA_OK(cudaMemsetAsync(device, 1, 32, origin));
  ASSERT_CUDA_OK(cudaEventRecord(fork, origin));
  ASSERT_CUDA_OK(cudaStreamWaitEvent(branch, fork, 0));
  ASSERT_CUDA_OK(cudaStreamIsCapturing(branch, &status));
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  ASSERT_CUDA_OK(cudaLaunchHostFunc(branch, sleepThenSet, &branchWork));
  ASSERT_CUDA_OK(cudaMemsetAsync(device + 32, 2, 32, branch));
  ASSERT_CUDA_OK(cudaEventRecord(join, branch));
  ASSERT_CUDA_OK(cudaStreamWaitEvent(origin, join, 0));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(origin, observe, &joined));
  std::size_t dependencies = 0;
  ASSERT_CUDA_OK(
      cudaStreamGetCaptureInfo(origin, &status, nullptr, nullptr, nullptr, nullptr, &dependencies));
  EXPECT_EQ(dependencies, 1u);
  EXPECT_EQ(cudaStreamSynchronize(origin), cudaErrorStreamCaptureUnsupported);
  cudaGraph_t graph = nullptr;
  ASSERT_CUDA_OK(cudaStreamEndCapture(origin, &graph));
  ASSERT_CUDA_OK(cudaStreamIsCapturing(branch, &status));
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);

  unsigned char before[64];
  ASSERT_CUDA_OK(cudaMemcpy(before, device, 64, cudaMemcpyDeviceToHost));
  EXPECT_EQ(before[0], 0);
  EXPECT_FALSE(joined.ran);

  cudaGraphExec_t exec = nullptr;
  ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  ASSERT_CUDA_OK(cudaGraphLaunch(exec, origin));
  ASSERT_CUDA_OK(cudaStreamSynchronize(origin));
  unsigned char after[64];
  ASSERT_CUDA_OK(cudaMemcpy(after, device, 64, cudaMemcpyDeviceToHost));
  EXPECT_EQ(after[0], 1);
  EXPECT_EQ(after[63], 2);
  EXPECT_TRUE(joined.ran);
  EXPECT_TRUE(joined.sawSet);

  ASSERT_CUDA_OK(cudaGraphExecDestroy(exec));
  ASSERT_CUDA_OK(cudaGraphDestroy(graph));
  ASSERT_CUDA_OK(cudaFree(device));
  ASSERT_CUDA_OK(cudaEventDestroy(fork));
  ASSERT_CUDA_OK(cudaEventDestroy(join));
  ASSERT_CUDA_OK(cudaStreamDestroy(origin));
  ASSERT_CUDA_OK(cudaStreamDestroy(branch));
}

TEST(Capture, OnlyTheOriginEndsACaptureAndEveryForkMustBeJoined) {
  cudaStream_t origin, branch;
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&branch, cudaStreamNonBlocking));
  cudaEvent_t fork;
  ASSERT_CUDA_OK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  void* device = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(&device, 64));

  ASSERT_CUDA_OK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  ASSERT_CUDA_OK(cudaEventRecord(fork, origin));
  ASSERT_CUDA_OK(cudaStreamWaitEvent(branch, fork, 0));
  ASSERT_CUDA_OK(cudaMemsetAsync(device, 1, 64, branch));
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(branch, &graph), cudaErrorStreamCaptureUnmatched);
  EXPECT_EQ(cudaStreamEndCapture(origin, &graph), cudaErrorStreamCaptureUnjoined);
  EXPECT_EQ(graph, nullptr);
  cudaGetLastError();
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
  ASSERT_CUDA_OK(cudaStreamIsCapturing(branch, &status));
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);

  ASSERT_CUDA_OK(cudaFree(device));
  ASSERT_CUDA_OK(cudaEventDestroy(fork));
  ASSERT_CUDA_OK(cudaStreamDestroy(origin));
  ASSERT_CUDA_OK(cudaStreamDestroy(branch));
}

void CUDART_CB countRun(void* count) {
  ++*static_cast<int*>(count);
}

// What the tracer's watch of host nodes relies on: a captured host node tells its type and its
// function, and an executable's copy of it takes another function from its next launch on,
// leaving launches already enqueued, other executables and the graph as they were.
TEST(Capture, AnExecutableTakesANewHostFunctionFromItsNextLaunchOn) {
  cudaStream_t stream;
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  void* device = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(&device, 64));
  int original = 0;
  int replacement = 0;
  ASSERT_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  ASSERT_CUDA_OK(cudaMemsetAsync(device, 1, 64, stream));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(stream, countRun, &original));
  const cudaGraphNode_t* last = nullptr;
  std::size_t count = 0;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  ASSERT_CUDA_OK(
      cudaStreamGetCaptureInfo(stream, &status, nullptr, nullptr, &last, nullptr, &count));
  ASSERT_EQ(count, 1u);
  const cudaGraphNode_t host = last[0];
  cudaGraph_t graph = nullptr;
  ASSERT_CUDA_OK(cudaStreamEndCapture(stream, &graph));

  cudaGraphNode_t nodes[2] = {};
  count = 2;
  ASSERT_CUDA_OK(cudaGraphGetNodes(graph, nodes, &count));
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(nodes[1], host);
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  ASSERT_CUDA_OK(cudaGraphNodeGetType(nodes[0], &type));
  EXPECT_EQ(type, cudaGraphNodeTypeMemset);
  ASSERT_CUDA_OK(cudaGraphNodeGetType(host, &type));
  EXPECT_EQ(type, cudaGraphNodeTypeHost);
  cudaHostNodeParams params{};
  ASSERT_CUDA_OK(cudaGraphHostNodeGetParams(host, &params));
  EXPECT_EQ(params.fn, &countRun);
  EXPECT_EQ(params.userData, &original);
  EXPECT_EQ(cudaGraphHostNodeGetParams(nodes[0], &params), cudaErrorInvalidValue);

  cudaGraphExec_t changed = nullptr;
  cudaGraphExec_t untouched = nullptr;
  ASSERT_CUDA_OK(cudaGraphInstantiate(&changed, graph, 0));
  ASSERT_CUDA_OK(cudaGraphInstantiate(&untouched, graph, 0));
  Flag held;
  ASSERT_CUDA_OK(cudaLaunchHostFunc(stream, sleepThenSet, &held)); // the next launch waits
  ASSERT_CUDA_OK(cudaGraphLaunch(changed, stream));
  const cudaHostNodeParams counting{countRun, &replacement};
  ASSERT_CUDA_OK(cudaGraphExecHostNodeSetParams(changed, host, &counting));
  EXPECT_EQ(cudaGraphExecHostNodeSetParams(changed, nodes[0], &counting), cudaErrorInvalidValue);
  ASSERT_CUDA_OK(cudaGraphLaunch(changed, stream));
  ASSERT_CUDA_OK(cudaGraphLaunch(untouched, stream));
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  EXPECT_EQ(original, 2);
  EXPECT_EQ(replacement, 1);
  ASSERT_CUDA_OK(cudaGraphHostNodeGetParams(host, &params));
  EXPECT_EQ(params.userData, &original);

  ASSERT_CUDA_OK(cudaGraphExecDestroy(changed));
  ASSERT_CUDA_OK(cudaGraphExecDestroy(untouched));
  ASSERT_CUDA_OK(cudaGraphDestroy(graph));
  ASSERT_CUDA_OK(cudaFree(device));
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

TEST(Capture, TheLegacyStreamCannotBeCaptured) {
  EXPECT_EQ(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
            cudaErrorStreamCaptureUnsupported);
  cudaGetLastError();
}

// Stands in for an nvcc host stub: only its address matters to the runtime.
void addKernel(int* data, int value, int n) {
  static_cast<void>(data);
  static_cast<void>(value);
  static_cast<void>(n);
}

void addOnCpu(const StreamraceEmuLaunch& launch, int* data, int value, int n) {
  int threads = static_cast<int>(launch.gridDim.x * launch.blockDim.x);
  for (int i = 0; i < n && i < threads; ++i) {
    data[i] += value;
  }
}

// A GPU reaches pinned and managed memory by DMA, past the program's page protections: so do
// the emulated device's copies, sets and kernels (through the second mapping), and the program
// sees what they wrote once it opens its pages again.
TEST(HostMemory, DeviceWorkReachesPinnedAndManagedPagesTheProgramClosed) {
  ASSERT_TRUE(streamrace_emulator::registerKernel<&addOnCpu>(addKernel));
  constexpr int n = 1024;
  constexpr std::size_t bytes = n * sizeof(int);
  int* device = nullptr;
  int* pinned = nullptr;
  int* managed = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&device), bytes));
  ASSERT_CUDA_OK(cudaMallocHost(reinterpret_cast<void**>(&pinned), bytes));
  ASSERT_CUDA_OK(cudaMallocManaged(reinterpret_cast<void**>(&managed), bytes));
  ASSERT_CUDA_OK(cudaMemset(device, 0, bytes));
  ASSERT_EQ(mprotect(pinned, bytes, PROT_NONE), 0);
  ASSERT_EQ(mprotect(managed, bytes, PROT_NONE), 0);
  ASSERT_CUDA_OK(cudaMemsetAsync(managed, 0, bytes, 0));
  int value = 3;
  int count = n;
  void* arguments[] = {&managed, &value, &count};
  ASSERT_CUDA_OK(cudaLaunchKernel(reinterpret_cast<const void*>(&addKernel), dim3(n / 256),
                                  dim3(256), arguments, 0, 0));
  ASSERT_CUDA_OK(cudaMemcpyAsync(device, managed, bytes, cudaMemcpyDefault, 0));
  ASSERT_CUDA_OK(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, 0));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  ASSERT_EQ(mprotect(pinned, bytes, PROT_READ | PROT_WRITE), 0);
  ASSERT_EQ(mprotect(managed, bytes, PROT_READ | PROT_WRITE), 0);
  EXPECT_EQ(managed[0], 3);
  EXPECT_EQ(managed[n - 1], 3);
  EXPECT_EQ(pinned[n - 1], 3);
  ASSERT_CUDA_OK(cudaFreeHost(pinned));
  ASSERT_CUDA_OK(cudaFree(managed));
  ASSERT_CUDA_OK(cudaFree(device));
}

TEST(Kernels, ARegisteredCpuImplementationRunsInStreamOrderWithTheArgumentsOfTheLaunch) {
  ASSERT_TRUE(streamrace_emulator::registerKernel<&addOnCpu>(addKernel));
  cudaStream_t stream;
  ASSERT_CUDA_OK(cudaStreamCreate(&stream));
  int* device = nullptr;
  constexpr int n = 64;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&device), n * sizeof(int)));
  ASSERT_CUDA_OK(cudaMemsetAsync(device, 0, n * sizeof(int), stream));
  Flag slow;
  ASSERT_CUDA_OK(cudaLaunchHostFunc(stream, sleepThenSet, &slow));
  int value = 5;
  int count = n;
  void* args[] = {&device, &value, &count};
  ASSERT_CUDA_OK(cudaLaunchKernel(reinterpret_cast<const void*>(&addKernel), dim3(2), dim3(32),
                                  args, 0, stream));
  // The launch copied its arguments: changing them now must not change what the kernel sees.
  value = 1000;
  std::vector<int> back(n, 0);
  ASSERT_CUDA_OK(
      cudaMemcpyAsync(back.data(), device, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  EXPECT_EQ(back.front(), 5);
  EXPECT_EQ(back.back(), 5);

  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&addKernel), dim3(1), dim3(2048), args,
                             0, stream),
            cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&addKernel), dim3(0), dim3(32), args, 0,
                             stream),
            cudaErrorInvalidConfiguration);
  cudaGetLastError();
  ASSERT_CUDA_OK(cudaFree(device));
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

TEST(Kernels, CooperativeAndExtensibleLaunchesRunTheSameImplementation) {
  ASSERT_TRUE(streamrace_emulator::registerKernel<&addOnCpu>(addKernel));
  int* device = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&device), sizeof(int)));
  ASSERT_CUDA_OK(cudaMemset(device, 0, sizeof(int)));
  int value = 2;
  int count = 1;
  void* args[] = {&device, &value, &count};
  const void* kernel = reinterpret_cast<const void*>(&addKernel);
  ASSERT_CUDA_OK(cudaLaunchCooperativeKernel(kernel, dim3(1), dim3(1), args, 0, 0));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1);
  config.blockDim = dim3(1);
  ASSERT_CUDA_OK(cudaLaunchKernelExC(&config, kernel, args));
  EXPECT_EQ(cudaLaunchKernelExC(nullptr, kernel, args), cudaErrorInvalidValue);
  cudaGetLastError();
  int result = 0;
  ASSERT_CUDA_OK(cudaMemcpy(&result, device, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(result, 4);
  ASSERT_CUDA_OK(cudaFree(device));
}

} // namespace
} // namespace streamrace::emu::test
