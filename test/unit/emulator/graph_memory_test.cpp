// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Graph memory: allocation and free nodes, added by hand or captured.
#include "emulator_test_support.h"

namespace streamrace::emu::test {
namespace {

constexpr std::size_t kBytes = 256;

cudaMemAllocNodeParams allocationOf(std::size_t bytes, int device) {
  cudaMemAllocNodeParams params{};
  params.poolProps.allocType = cudaMemAllocationTypePinned;
  params.poolProps.location.type = cudaMemLocationTypeDevice;
  params.poolProps.location.id = device;
  params.bytesize = bytes;
  return params;
}

TEST(GraphMemory, AnAllocationHasItsAddressWhenAddedAndKeepsItForEveryLaunch) {
  cudaStream_t stream = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  unsigned char* out = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&out), kBytes));
  cudaGraph_t graph = nullptr;
  ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
  cudaMemAllocNodeParams allocation = allocationOf(kBytes, 0);
  cudaGraphNode_t alloc = nullptr;
  ASSERT_CUDA_OK(cudaGraphAddMemAllocNode(&alloc, graph, nullptr, 0, &allocation));
  ASSERT_NE(allocation.dptr, nullptr);
  cudaMemAllocNodeParams asked{};
  ASSERT_CUDA_OK(cudaGraphMemAllocNodeGetParams(alloc, &asked));
  EXPECT_EQ(asked.dptr, allocation.dptr);
  EXPECT_EQ(asked.bytesize, kBytes);
  EXPECT_EQ(asked.poolProps.location.id, 0);

  cudaMemsetParams set{};
  set.dst = allocation.dptr;
  set.value = 3;
  set.elementSize = 1;
  set.width = kBytes;
  set.height = 1;
  cudaGraphNode_t memset = nullptr;
  cudaGraphNode_t copy = nullptr;
  cudaGraphNode_t free = nullptr;
  ASSERT_CUDA_OK(cudaGraphAddMemsetNode(&memset, graph, &alloc, 1, &set));
  ASSERT_CUDA_OK(cudaGraphAddMemcpyNode1D(&copy, graph, &memset, 1, out, allocation.dptr, kBytes,
                                          cudaMemcpyDeviceToDevice));
  ASSERT_CUDA_OK(cudaGraphAddMemFreeNode(&free, graph, &copy, 1, allocation.dptr));
  void* freed = nullptr;
  ASSERT_CUDA_OK(cudaGraphMemFreeNodeGetParams(free, &freed));
  EXPECT_EQ(freed, allocation.dptr);
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  ASSERT_CUDA_OK(cudaGraphNodeGetType(free, &type));
  EXPECT_EQ(type, cudaGraphNodeTypeMemFree);
  // Another node's kind has no allocation to tell.
  EXPECT_EQ(cudaGraphMemAllocNodeGetParams(memset, &asked), cudaErrorInvalidValue);

  cudaGraphExec_t executable = nullptr;
  ASSERT_CUDA_OK(cudaGraphInstantiate(&executable, graph, 0));
  for (int launch = 0; launch < 2; ++launch) {
    ASSERT_CUDA_OK(cudaMemset(out, 0, kBytes));
    ASSERT_CUDA_OK(cudaGraphLaunch(executable, stream));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
    unsigned char last = 0;
    ASSERT_CUDA_OK(cudaMemcpy(&last, out + kBytes - 1, 1, cudaMemcpyDeviceToHost));
    EXPECT_EQ(last, 3) << "launch " << launch;
  }
  EXPECT_EQ(cudaGraphExecDestroy(executable), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(cudaDeviceGraphMemTrim(0), cudaSuccess);
  EXPECT_EQ(cudaFree(out), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(GraphMemory, BadAllocationsAreRefusedWithTheirReason) {
  cudaGraph_t graph = nullptr;
  ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t node = nullptr;
  cudaMemAllocNodeParams empty = allocationOf(0, 0);
  EXPECT_EQ(cudaGraphAddMemAllocNode(&node, graph, nullptr, 0, &empty), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphAddMemAllocNode(&node, graph, nullptr, 0, nullptr), cudaErrorInvalidValue);
  cudaMemAllocNodeParams nowhere = allocationOf(kBytes, 1000);
  EXPECT_EQ(cudaGraphAddMemAllocNode(&node, graph, nullptr, 0, &nowhere), cudaErrorInvalidDevice);
  int stack = 0;
  EXPECT_EQ(cudaGraphAddMemFreeNode(&node, graph, nullptr, 0, &stack), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGraphMemTrim(1000), cudaErrorInvalidDevice);
  std::size_t count = 1;
  ASSERT_CUDA_OK(cudaGraphGetNodes(graph, nullptr, &count));
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

} // namespace
} // namespace streamrace::emu::test
