// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Graph memory nodes, for the tracer's lit tests: an allocation a graph makes lives from its
// allocation node to its free node, in graph order. A memset node writes it and a copy node reads
// it into `out`; the edges decide whether both are inside that life.
//
//   graph_memory <scenario>
//   before-alloc    the memset node does not follow the allocation node
//   after-free      the free node does not follow the copy node
//   ordered         alloc -> memset -> copy -> free
//   captured-after-free    the same graph captured (cudaMallocAsync, cudaFreeAsync): the copy
//                          runs on a forked stream the free does not wait for
//   captured-ordered       the forked stream is joined before the free
// Each graph is launched twice: its memory is allocated and freed by every launch.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string_view>

#include "../../Inputs/check_call.h"

namespace {

constexpr size_t kBytes = 4096;

int hand_built(std::string_view scenario, void* out, cudaGraph_t& graph) {
  CHECK(cudaGraphCreate(&graph, 0));
  int device = 0;
  CHECK(cudaGetDevice(&device));
  cudaMemAllocNodeParams allocation{};
  allocation.poolProps.allocType = cudaMemAllocationTypePinned;
  allocation.poolProps.location.type = cudaMemLocationTypeDevice;
  allocation.poolProps.location.id = device;
  allocation.bytesize = kBytes;
  cudaGraphNode_t alloc = nullptr;
  CHECK(cudaGraphAddMemAllocNode(&alloc, graph, nullptr, 0, &allocation));
  cudaMemAllocNodeParams asked{};
  CHECK(cudaGraphMemAllocNodeGetParams(alloc, &asked));
  std::printf("allocation node: %zu bytes, %s\n", asked.bytesize,
              asked.dptr == allocation.dptr ? "same address" : "another address");

  cudaMemsetParams set{};
  set.dst = allocation.dptr;
  set.value = 5;
  set.elementSize = 1;
  set.width = kBytes;
  set.height = 1;
  const bool set_after_alloc = scenario != "before-alloc";
  cudaGraphNode_t memset = nullptr;
  CHECK(cudaGraphAddMemsetNode(&memset, graph, set_after_alloc ? &alloc : nullptr,
                               set_after_alloc ? 1 : 0, &set));
  cudaGraphNode_t copy = nullptr;
  CHECK(cudaGraphAddMemcpyNode1D(&copy, graph, &memset, 1, out, allocation.dptr, kBytes,
                                 cudaMemcpyDeviceToDevice));
  // The free follows the copy, or only the memset.
  cudaGraphNode_t free = nullptr;
  CHECK(cudaGraphAddMemFreeNode(&free, graph, scenario == "after-free" ? &memset : &copy, 1,
                                allocation.dptr));
  void* freed = nullptr;
  CHECK(cudaGraphMemFreeNodeGetParams(free, &freed));
  std::printf("free node: %s\n", freed == allocation.dptr ? "same address" : "another address");
  return 0;
}

int captured(std::string_view scenario, void* out, cudaStream_t stream, cudaStream_t side,
             cudaGraph_t& graph) {
  cudaEvent_t fork = nullptr;
  cudaEvent_t join = nullptr;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  void* scratch = nullptr;
  CHECK(cudaMallocAsync(&scratch, kBytes, stream));
  CHECK(cudaMemsetAsync(scratch, 5, kBytes, stream));
  CHECK(cudaEventRecord(fork, stream));
  CHECK(cudaStreamWaitEvent(side, fork, 0));
  CHECK(cudaMemcpyAsync(out, scratch, kBytes, cudaMemcpyDeviceToDevice, side));
  CHECK(cudaEventRecord(join, side));
  if (scenario == "captured-ordered") CHECK(cudaStreamWaitEvent(stream, join, 0));
  CHECK(cudaFreeAsync(scratch, stream));
  // Every forked stream must be joined before the capture ends.
  if (scenario != "captured-ordered") CHECK(cudaStreamWaitEvent(stream, join, 0));
  CHECK(cudaStreamEndCapture(stream, &graph));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: graph_memory <scenario>\n");
    return 2;
  }
  const std::string_view scenario = argv[1];
  void* out = nullptr;
  CHECK(cudaMalloc(&out, kBytes));
  cudaStream_t stream = nullptr;
  cudaStream_t side = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  const int built = scenario.starts_with("captured") ? captured(scenario, out, stream, side, graph)
                                                     : hand_built(scenario, out, graph);
  if (built != 0) return built;
  cudaGraphExec_t executable = nullptr;
  CHECK(cudaGraphInstantiate(&executable, graph, 0));
  for (int launch = 0; launch < 2; ++launch)
    CHECK(cudaGraphLaunch(executable, stream));
  CHECK(cudaStreamSynchronize(stream));
  unsigned char first = 0;
  CHECK(cudaMemcpy(&first, out, 1, cudaMemcpyDeviceToHost));
  std::printf("scenario %s: copied %d\n", argv[1], first);
  CHECK(cudaGraphExecDestroy(executable));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaDeviceGraphMemTrim(0));
  return 0;
}
