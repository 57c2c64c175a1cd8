// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Graphs built with the generic node calls of CUDA 12.2 (cudaGraphAddNode, cudaGraphNodeSetParams,
// cudaGraphExecNodeSetParams), racy and ordered, for the tracer's lit tests. A memset node writes
// `buffer`; a copy (a node of the same graph, or a copy on another stream) reads it.
//
//   generic_graph_nodes <scenario>
//   no-edge        a memset node and a copy node reading its bytes, no edge between them
//   edge           the same, the copy node depends on the memset node
//   record-node    the graph (memset only) launched on one stream, an event record node after the
//                  memset node; a copy on another stream waits for the event, then reads
//   record-apart   the same, the event record node not after the memset node
//   graph-set      the memset node writes other bytes, no edge; before instantiation its
//                  parameters are set (cudaGraphNodeSetParams) to write the copy's source
//   graph-set-apart the same, set to write a third buffer nobody reads
//   exec-set       `graph-set`, set in the executable (cudaGraphExecNodeSetParams)
//   exec-set-apart the same, set to write the third buffer
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

cudaGraphNodeParams memset_params(void* destination) {
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeMemset;
  params.memset.dst = destination;
  params.memset.value = 7;
  params.memset.elementSize = 4;
  params.memset.width = kBytes / 4;
  params.memset.height = 1;
  return params;
}

cudaGraphNodeParams copy_params(void* destination, void* source) {
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeMemcpy;
  params.memcpy.copyParams.dstPtr = cudaPitchedPtr{destination, kBytes, kBytes, 1};
  params.memcpy.copyParams.srcPtr = cudaPitchedPtr{source, kBytes, kBytes, 1};
  params.memcpy.copyParams.extent = cudaExtent{kBytes, 1, 1};
  params.memcpy.copyParams.kind = cudaMemcpyDeviceToDevice;
  return params;
}

cudaGraphNode_t add(cudaGraph_t graph, cudaGraphNodeParams params, cudaGraphNode_t after) {
  cudaGraphNode_t node = nullptr;
  CHECK(cudaGraphAddNode(&node, graph, after != nullptr ? &after : nullptr, nullptr,
                         after != nullptr ? 1 : 0, &params));
  return node;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: generic_graph_nodes <scenario>\n");
    return 2;
  }
  const std::string_view scenario = argv[1];
  void* buffer = nullptr;
  void* copy = nullptr;
  void* other = nullptr;
  void* third = nullptr;
  CHECK(cudaMalloc(&buffer, kBytes));
  CHECK(cudaMalloc(&copy, kBytes));
  CHECK(cudaMalloc(&other, kBytes));
  CHECK(cudaMalloc(&third, kBytes));
  cudaStream_t launcher = nullptr;
  cudaStream_t reader = nullptr;
  CHECK(cudaStreamCreateWithFlags(&launcher, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  cudaEvent_t written = nullptr;
  CHECK(cudaEventCreate(&written));

  cudaGraph_t graph = nullptr;
  CHECK(cudaGraphCreate(&graph, 0));
  const bool apart = scenario.ends_with("set-apart");
  const bool setter = scenario.ends_with("set") || apart;
  const cudaGraphNode_t set = add(graph, memset_params(setter ? other : buffer), nullptr);
  const bool in_graph = scenario == "no-edge" || scenario == "edge" || setter;
  if (in_graph) add(graph, copy_params(copy, buffer), scenario == "edge" ? set : nullptr);
  if (scenario.starts_with("record")) {
    cudaGraphNodeParams record{};
    record.type = cudaGraphNodeTypeEventRecord;
    record.eventRecord.event = written;
    add(graph, record, scenario == "record-node" ? set : nullptr);
  }
  if (scenario.starts_with("graph-set")) {
    cudaGraphNodeParams now = memset_params(apart ? third : buffer);
    CHECK(cudaGraphNodeSetParams(set, &now));
  }
  cudaGraphExec_t executable = nullptr;
  CHECK(cudaGraphInstantiate(&executable, graph, 0));
  if (scenario.starts_with("exec-set")) {
    cudaGraphNodeParams now = memset_params(apart ? third : buffer);
    CHECK(cudaGraphExecNodeSetParams(executable, set, &now));
  }
  CHECK(cudaGraphLaunch(executable, launcher));
  if (!in_graph) {
    CHECK(cudaStreamWaitEvent(reader, written, 0));
    CHECK(cudaMemcpyAsync(copy, buffer, kBytes, cudaMemcpyDeviceToDevice, reader));
  }
  CHECK(cudaDeviceSynchronize());
  unsigned first = 0;
  CHECK(cudaMemcpy(&first, copy, sizeof first, cudaMemcpyDeviceToHost));
  unsigned set_word = 0;
  CHECK(cudaMemcpy(&set_word, apart ? third : buffer, sizeof set_word, cudaMemcpyDeviceToHost));
  std::printf("scenario %s: done, the set word %u\n", argv[1], set_word);
  CHECK(cudaGraphExecDestroy(executable));
  CHECK(cudaGraphDestroy(graph));
  return 0;
}
