// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Edges and nodes taken out of a graph built by hand (cudaGraphRemoveDependencies,
// cudaGraphDestroyNode): an executable made afterwards runs without them, and a call naming an
// edge or node the graph lacks changes nothing.
#include "emulator_test_support.h"

namespace streamrace::emu::test {
namespace {

constexpr std::size_t kBytes = 64;

cudaGraphNode_t addSet(cudaGraph_t graph, void* destination, unsigned value,
                       const cudaGraphNode_t* after, std::size_t count) {
  const cudaMemsetParams params = byteSetParams(destination, value, kBytes);
  cudaGraphNode_t node = nullptr;
  EXPECT_EQ(cudaGraphAddMemsetNode(&node, graph, after, count, &params), cudaSuccess);
  return node;
}

std::size_t dependencyCount(cudaGraphNode_t node) {
  std::size_t count = 0;
  EXPECT_EQ(cudaGraphNodeGetDependencies(node, nullptr, nullptr, &count), cudaSuccess);
  return count;
}

TEST(GraphRemoval, ARemovedEdgeIsGoneAndAMissingOneIsRefused) {
  unsigned char* buffer = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&buffer), kBytes));
  cudaGraph_t graph = nullptr;
  ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t first = addSet(graph, buffer, 1, nullptr, 0);
  cudaGraphNode_t second = addSet(graph, buffer, 2, &first, 1);
  EXPECT_EQ(cudaGraphRemoveDependencies(graph, &second, &first, nullptr, 1), cudaErrorInvalidValue);
  EXPECT_EQ(dependencyCount(second), 1u);
  ASSERT_CUDA_OK(cudaGraphRemoveDependencies(graph, &first, &second, nullptr, 1));
  EXPECT_EQ(dependencyCount(second), 0u);
  EXPECT_EQ(cudaGraphRemoveDependencies(graph, &first, &second, nullptr, 1), cudaErrorInvalidValue);
  ASSERT_CUDA_OK(cudaGraphDestroy(graph));
  ASSERT_CUDA_OK(cudaFree(buffer));
}

TEST(GraphRemoval, ADestroyedNodeDoesNotRunAndTakesItsEdges) {
  unsigned char* buffer = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&buffer), kBytes));
  ASSERT_CUDA_OK(cudaMemset(buffer, 0, kBytes));
  cudaGraph_t graph = nullptr;
  ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t first = addSet(graph, buffer, 1, nullptr, 0);
  cudaGraphNode_t last = addSet(graph, buffer, 2, &first, 1);
  ASSERT_CUDA_OK(cudaGraphDestroyNode(last));
  std::size_t nodes = 0;
  ASSERT_CUDA_OK(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_EQ(nodes, 1u);
  EXPECT_EQ(cudaGraphDestroyNode(last), cudaErrorInvalidValue);
  cudaGraphExec_t executable = nullptr;
  ASSERT_CUDA_OK(cudaGraphInstantiate(&executable, graph, 0));
  ASSERT_CUDA_OK(cudaGraphLaunch(executable, nullptr));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  unsigned char byte = 0;
  ASSERT_CUDA_OK(cudaMemcpy(&byte, buffer + kBytes - 1, 1, cudaMemcpyDeviceToHost));
  EXPECT_EQ(byte, 1); // the destroyed node's value never lands
  ASSERT_CUDA_OK(cudaGraphExecDestroy(executable));
  ASSERT_CUDA_OK(cudaGraphDestroy(graph));
  ASSERT_CUDA_OK(cudaFree(buffer));
}

} // namespace
} // namespace streamrace::emu::test
