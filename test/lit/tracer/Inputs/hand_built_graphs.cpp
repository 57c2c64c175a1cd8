// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Graphs built node by node, racy and ordered, for the tracer's lit tests. A memset node writes
// `buffer`; a copy (a node of the same graph, or a copy on another stream) reads it.
//
//   hand_built_graphs <scenario>
//   no-edge        a memset node and a 1D copy node reading its bytes, no edge between them
//   edge           the same, the copy node depends on the memset node
//   added-edge     the same, the edge added afterwards (cudaGraphAddDependencies)
//   child          the memset node inside a child graph, the copy node after the child node
//   launch-race    the graph (memset only) launched on one stream, a copy on another reads
//   launch-event   the same, the reader stream waits on an event recorded after the launch
//   record-node    the same, the event recorded by an event record node after the memset node
//   removed-edge   `edge`, then the edge removed (cudaGraphRemoveDependencies)
//   removed-other  the copy node after the memset node and an empty node; the empty node's edge
//                  removed
//   destroyed-node the copy node after an empty node after the memset node; the empty node
//                  destroyed (cudaGraphDestroyNode), its edges with it
//   destroyed-other the same, with an edge from the memset node to the copy node as well
//   clone-set      a copy node reading other bytes, no edge; in a clone of the graph, the copy
//                  node (cudaGraphNodeFindInClone) set to read the memset's; the clone launched
//   clone-set-edge the same, the copy node after the memset node
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if (cudaError_t error_ = (call); error_ != cudaSuccess) {                                      \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(error_));                  \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace {

constexpr size_t kBytes = 4096;

cudaGraphNode_t add_memset(cudaGraph_t graph, void* buffer) {
  cudaMemsetParams set{};
  set.dst = buffer;
  set.value = 7;
  set.elementSize = 4;
  set.width = kBytes / 4;
  set.height = 1;
  cudaGraphNode_t node = nullptr;
  CHECK(cudaGraphAddMemsetNode(&node, graph, nullptr, 0, &set));
  return node;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: hand_built_graphs <scenario>\n");
    return 2;
  }
  const std::string_view scenario = argv[1];
  void* buffer = nullptr;
  void* copy = nullptr;
  CHECK(cudaMalloc(&buffer, kBytes));
  CHECK(cudaMalloc(&copy, kBytes));
  cudaStream_t launcher = nullptr;
  cudaStream_t reader = nullptr;
  CHECK(cudaStreamCreateWithFlags(&launcher, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  cudaEvent_t written = nullptr;
  CHECK(cudaEventCreate(&written));

  cudaGraph_t graph = nullptr;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraph_t child = nullptr;
  cudaGraphNode_t before = nullptr;
  if (scenario == "child") {
    CHECK(cudaGraphCreate(&child, 0));
    add_memset(child, buffer);
    CHECK(cudaGraphAddChildGraphNode(&before, graph, nullptr, 0, child));
  } else {
    before = add_memset(graph, buffer);
  }
  const bool removal = scenario == "removed-edge" || scenario == "removed-other" ||
                       scenario == "destroyed-node" || scenario == "destroyed-other";
  const bool cloned = scenario.starts_with("clone-set");
  const bool in_graph = scenario == "no-edge" || scenario == "edge" || scenario == "added-edge" ||
                        scenario == "child" || removal || cloned;
  if (removal) {
    cudaGraphNode_t empty = nullptr;
    const bool chained = scenario.starts_with("destroyed");
    CHECK(cudaGraphAddEmptyNode(&empty, graph, chained ? &before : nullptr, chained ? 1 : 0));
    const cudaGraphNode_t both[] = {before, empty};
    const bool direct = scenario != "destroyed-node";
    cudaGraphNode_t reading = nullptr;
    CHECK(cudaGraphAddMemcpyNode1D(&reading, graph, direct ? both : both + 1, direct ? 2 : 1, copy,
                                   buffer, kBytes, cudaMemcpyDeviceToDevice));
    if (scenario == "removed-edge")
      CHECK(cudaGraphRemoveDependencies(graph, &before, &reading, nullptr, 1));
    if (scenario == "removed-other")
      CHECK(cudaGraphRemoveDependencies(graph, &empty, &reading, nullptr, 1));
    if (chained) CHECK(cudaGraphDestroyNode(empty));
    size_t nodes = 0;
    size_t copy_dependencies = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    CHECK(cudaGraphNodeGetDependencies(reading, nullptr, nullptr, &copy_dependencies));
    std::printf("graph: %zu nodes, the copy after %zu\n", nodes, copy_dependencies);
  } else if (in_graph && !cloned) {
    const bool edge = scenario == "edge" || scenario == "child";
    cudaGraphNode_t reading = nullptr;
    CHECK(cudaGraphAddMemcpyNode1D(&reading, graph, edge ? &before : nullptr, edge ? 1 : 0, copy,
                                   buffer, kBytes, cudaMemcpyDeviceToDevice));
    if (scenario == "added-edge")
      CHECK(cudaGraphAddDependencies(graph, &before, &reading, nullptr, 1));
  } else if (scenario == "record-node") {
    cudaGraphNode_t record = nullptr;
    CHECK(cudaGraphAddEventRecordNode(&record, graph, &before, 1, written));
  }
  cudaGraph_t clone = nullptr;
  if (cloned) {
    void* other = nullptr;
    CHECK(cudaMalloc(&other, kBytes));
    const bool edge = scenario == "clone-set-edge";
    cudaGraphNode_t reading = nullptr;
    CHECK(cudaGraphAddMemcpyNode1D(&reading, graph, edge ? &before : nullptr, edge ? 1 : 0, copy,
                                   other, kBytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaGraphClone(&clone, graph));
    cudaGraphNode_t reading_in_clone = nullptr;
    CHECK(cudaGraphNodeFindInClone(&reading_in_clone, reading, clone));
    CHECK(cudaGraphMemcpyNodeSetParams1D(reading_in_clone, copy, buffer, kBytes,
                                         cudaMemcpyDeviceToDevice));
  }
  cudaGraphExec_t executable = nullptr;
  CHECK(cudaGraphInstantiate(&executable, clone != nullptr ? clone : graph, 0));
  CHECK(cudaGraphLaunch(executable, launcher));
  if (!in_graph) {
    if (scenario == "launch-event") CHECK(cudaEventRecord(written, launcher));
    if (scenario != "launch-race") CHECK(cudaStreamWaitEvent(reader, written, 0));
    CHECK(cudaMemcpyAsync(copy, buffer, kBytes, cudaMemcpyDeviceToDevice, reader));
  }
  CHECK(cudaDeviceSynchronize());
  unsigned first = 0;
  CHECK(cudaMemcpy(&first, copy, sizeof first, cudaMemcpyDeviceToHost));
  std::printf("scenario %s: done, the copy's first word %u\n", argv[1], first);
  CHECK(cudaGraphExecDestroy(executable));
  CHECK(cudaGraphDestroy(graph));
  if (child != nullptr) CHECK(cudaGraphDestroy(child));
  if (clone != nullptr) CHECK(cudaGraphDestroy(clone));
  return 0;
}
