// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// New parameters for the nodes of a graph or of an executable made from it, and executables
// updated from another graph of the same shape (cudaGraphExecUpdate).
#include "emulator_test_support.h"

#include <cstring>
#include <vector>

namespace streamrace::emu::test {
namespace {

constexpr std::size_t kBytes = 64;

cudaMemsetParams setParams(void* destination, unsigned value, std::size_t bytes = kBytes) {
  return byteSetParams(destination, value, bytes);
}

// The first byte of each buffer, after the device is done.
std::vector<unsigned char> firstBytes(const std::vector<unsigned char*>& buffers) {
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned char> bytes;
  for (unsigned char* buffer : buffers) {
    unsigned char byte = 0;
    EXPECT_EQ(cudaMemcpy(&byte, buffer, 1, cudaMemcpyDeviceToHost), cudaSuccess);
    bytes.push_back(byte);
  }
  return bytes;
}

class GraphUpdates : public ::testing::Test {
protected:
  void SetUp() override {
    for (unsigned char** buffer : {&first_, &second_, &source_}) {
      ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(buffer), kBytes));
      ASSERT_CUDA_OK(cudaMemset(*buffer, 0, kBytes));
    }
    ASSERT_CUDA_OK(cudaMemset(source_, 9, kBytes));
    ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  void TearDown() override {
    for (unsigned char* buffer : {first_, second_, source_})
      EXPECT_EQ(cudaFree(buffer), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
  }

  unsigned char* first_ = nullptr;
  unsigned char* second_ = nullptr;
  unsigned char* source_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

TEST_F(GraphUpdates, AnExecutableRunsItsNewParametersAndTheGraphKeepsItsOwn) {
  cudaGraph_t graph = nullptr;
  ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
  const cudaMemsetParams onFirst = setParams(first_, 1);
  cudaGraphNode_t node = nullptr;
  ASSERT_CUDA_OK(cudaGraphAddMemsetNode(&node, graph, nullptr, 0, &onFirst));
  cudaGraphExec_t executable = nullptr;
  ASSERT_CUDA_OK(cudaGraphInstantiate(&executable, graph, 0));
  const cudaMemsetParams onSecond = setParams(second_, 2);
  ASSERT_CUDA_OK(cudaGraphExecMemsetNodeSetParams(executable, node, &onSecond));
  ASSERT_CUDA_OK(cudaGraphLaunch(executable, stream_));
  EXPECT_EQ(firstBytes({first_, second_}), (std::vector<unsigned char>{0, 2}));

  // The graph still sets the first buffer: a new executable made from it does.
  cudaGraphExec_t fresh = nullptr;
  ASSERT_CUDA_OK(cudaGraphInstantiate(&fresh, graph, 0));
  ASSERT_CUDA_OK(cudaGraphLaunch(fresh, stream_));
  EXPECT_EQ(firstBytes({first_, second_}), (std::vector<unsigned char>{1, 2}));

  // A node's new parameters in the graph reach executables made afterwards, not earlier ones.
  ASSERT_CUDA_OK(cudaGraphMemsetNodeSetParams(node, &onSecond));
  ASSERT_CUDA_OK(cudaMemset(first_, 0, kBytes));
  ASSERT_CUDA_OK(cudaMemset(second_, 0, kBytes));
  ASSERT_CUDA_OK(cudaGraphLaunch(fresh, stream_));
  EXPECT_EQ(firstBytes({first_, second_}), (std::vector<unsigned char>{1, 0}));
  cudaGraphExec_t later = nullptr;
  ASSERT_CUDA_OK(cudaGraphInstantiate(&later, graph, 0));
  ASSERT_CUDA_OK(cudaMemset(first_, 0, kBytes));
  ASSERT_CUDA_OK(cudaGraphLaunch(later, stream_));
  EXPECT_EQ(firstBytes({first_, second_}), (std::vector<unsigned char>{0, 2}));

  for (cudaGraphExec_t made : {executable, fresh, later})
    EXPECT_EQ(cudaGraphExecDestroy(made), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

TEST_F(GraphUpdates, CopyNodesTakeNewBuffersAndANodeKeepsItsType) {
  cudaGraph_t graph = nullptr;
  ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t copy = nullptr;
  ASSERT_CUDA_OK(cudaGraphAddMemcpyNode1D(&copy, graph, nullptr, 0, first_, source_, kBytes,
                                          cudaMemcpyDeviceToDevice));
  cudaGraphExec_t executable = nullptr;
  ASSERT_CUDA_OK(cudaGraphInstantiate(&executable, graph, 0));
  ASSERT_CUDA_OK(cudaGraphExecMemcpyNodeSetParams1D(executable, copy, second_, source_, kBytes,
                                                    cudaMemcpyDeviceToDevice));
  ASSERT_CUDA_OK(cudaGraphLaunch(executable, stream_));
  EXPECT_EQ(firstBytes({first_, second_}), (std::vector<unsigned char>{0, 9}));

  const cudaMemsetParams set = setParams(first_, 3);
  EXPECT_EQ(cudaGraphExecMemsetNodeSetParams(executable, copy, &set), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphMemsetNodeSetParams(copy, &set), cudaErrorInvalidValue);
  // Parameters the node's own call would refuse are refused, and change nothing.
  EXPECT_EQ(cudaGraphExecMemcpyNodeSetParams1D(executable, copy, second_, source_, kBytes * 2,
                                               cudaMemcpyDeviceToDevice),
            cudaErrorInvalidValue);
  ASSERT_CUDA_OK(cudaMemset(second_, 0, kBytes));
  ASSERT_CUDA_OK(cudaGraphLaunch(executable, stream_));
  EXPECT_EQ(firstBytes({first_, second_}), (std::vector<unsigned char>{0, 9}));
  EXPECT_EQ(cudaGraphExecDestroy(executable), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

TEST_F(GraphUpdates, AnUpdateTakesTheParametersOfAGraphOfTheSameShapeOnly) {
  auto twoSets = [&](unsigned char* destination, cudaGraph_t& graph) {
    ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
    const cudaMemsetParams first = setParams(destination, 4, kBytes / 2);
    const cudaMemsetParams second = setParams(destination + kBytes / 2, 5, kBytes / 2);
    cudaGraphNode_t before = nullptr;
    cudaGraphNode_t after = nullptr;
    ASSERT_CUDA_OK(cudaGraphAddMemsetNode(&before, graph, nullptr, 0, &first));
    ASSERT_CUDA_OK(cudaGraphAddMemsetNode(&after, graph, &before, 1, &second));
  };
  cudaGraph_t original = nullptr;
  cudaGraph_t same = nullptr;
  twoSets(first_, original);
  twoSets(second_, same);
  cudaGraphExec_t executable = nullptr;
  ASSERT_CUDA_OK(cudaGraphInstantiate(&executable, original, 0));
  cudaGraphExecUpdateResultInfo info{};
  ASSERT_CUDA_OK(cudaGraphExecUpdate(executable, same, &info));
  EXPECT_EQ(info.result, cudaGraphExecUpdateSuccess);
  ASSERT_CUDA_OK(cudaGraphLaunch(executable, stream_));
  EXPECT_EQ(firstBytes({first_, second_}), (std::vector<unsigned char>{0, 4}));

  // One node more: the topology changed. A copy where a memset was: the node's type did.
  cudaGraph_t bigger = nullptr;
  twoSets(second_, bigger);
  cudaGraphNode_t extra = nullptr;
  ASSERT_CUDA_OK(cudaGraphAddEmptyNode(&extra, bigger, nullptr, 0));
  EXPECT_EQ(cudaGraphExecUpdate(executable, bigger, &info), cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorTopologyChanged);
  cudaGraph_t retyped = nullptr;
  ASSERT_CUDA_OK(cudaGraphCreate(&retyped, 0));
  const cudaMemsetParams set = setParams(second_, 6);
  cudaGraphNode_t copy = nullptr;
  cudaGraphNode_t after = nullptr;
  ASSERT_CUDA_OK(cudaGraphAddMemcpyNode1D(&copy, retyped, nullptr, 0, second_, source_, kBytes,
                                          cudaMemcpyDeviceToDevice));
  ASSERT_CUDA_OK(cudaGraphAddMemsetNode(&after, retyped, &copy, 1, &set));
  EXPECT_EQ(cudaGraphExecUpdate(executable, retyped, &info), cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorNodeTypeChanged);
  EXPECT_EQ(info.errorNode, copy);

  // The refused updates changed nothing; the node handles of the graph the executable was
  // updated from name its nodes too.
  ASSERT_CUDA_OK(cudaMemset(second_, 0, kBytes));
  cudaGraphNode_t nodes[2] = {};
  std::size_t count = 2;
  ASSERT_CUDA_OK(cudaGraphGetNodes(same, nodes, &count));
  const cudaMemsetParams onFirst = setParams(first_, 7, kBytes / 2);
  ASSERT_CUDA_OK(cudaGraphExecMemsetNodeSetParams(executable, nodes[0], &onFirst));
  ASSERT_CUDA_OK(cudaGraphLaunch(executable, stream_));
  EXPECT_EQ(firstBytes({first_, second_, second_ + kBytes / 2}),
            (std::vector<unsigned char>{7, 0, 5}));

  EXPECT_EQ(cudaGraphExecDestroy(executable), cudaSuccess);
  for (cudaGraph_t graph : {original, same, bigger, retyped})
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

} // namespace
} // namespace streamrace::emu::test
