// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host nodes of CUDA graphs that read pinned memory, for the tracer's `watch_host_accesses`
// tests. Built with -g against the real CUDA runtime; run on the emulator under the tracer. A
// copy fills a pinned slot; a host node of a graph, added by hand or captured from
// cudaLaunchHostFunc, reads it with a plain load. Every graph is launched twice.
//
//   graph_host_functions <scenario>
//   built-unordered        a graph built by hand: a copy node fills the slot, a host node with
//                          no edge from it reads the slot
//   built-edge             the same with the edge from the copy node to the host node
//   captured-unordered     captured: the copy on the origin stream, the host function on a
//                          forked stream that joined the capture before the copy
//   captured-ordered       the same, forked after the copy
//   built-other-stream     a copy on another stream fills the slot; a graph of one host node,
//                          built by hand, launched with nothing ordering it after the copy
//   built-other-stream-event   the same, the launch stream waiting on an event after the copy
//   captured-other-stream  built-other-stream with the host node captured
//   captured-other-stream-event   the same, with the event
//   generic-unordered      built-unordered with the host node added by cudaGraphAddNode
//   generic-edge           the same with the edge
//   exec-set-unordered     built-unordered, the executable's host node then given another
//                          reader with cudaGraphExecNodeSetParams
//   exec-set-edge          the same with the edge
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "../../Inputs/check_call.h"

namespace {

constexpr int kCount = 1024;
constexpr std::size_t kBytes = kCount * sizeof(int);
constexpr int kLaunches = 2;

struct Slot {
  int* pinned = nullptr;
  int copies_seen = 0;
};

void CUDART_CB readSlot(void* data) {
  auto* slot = static_cast<Slot*>(data);
  if (slot->pinned[0] == 0x07070707) ++slot->copies_seen; // the host node's read
}

void CUDART_CB readSlotAgain(void* data) {
  auto* slot = static_cast<Slot*>(data);
  if (slot->pinned[1] == 0x07070707) ++slot->copies_seen; // the replacing reader's read
}

// The slot, and a device buffer of sevens the copies fill it from.
int allocate(int*& device, Slot& slot) {
  CHECK(cudaMalloc(&device, kBytes));
  CHECK(cudaMallocHost(&slot.pinned, kBytes));
  CHECK(cudaMemset(device, 7, kBytes));
  CHECK(cudaDeviceSynchronize());
  return 0;
}

// With `replaced`, the executable's copy of that host node gets readSlotAgain instead, through
// the generic cudaGraphExecNodeSetParams.
int launchAndRelease(cudaGraph_t graph, cudaStream_t stream, int* device, Slot& slot,
                     cudaGraphNode_t replaced = nullptr) {
  cudaGraphExec_t exec = nullptr;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  if (replaced != nullptr) {
    cudaGraphNodeParams again{};
    again.type = cudaGraphNodeTypeHost;
    again.host.fn = readSlotAgain;
    again.host.userData = &slot;
    CHECK(cudaGraphExecNodeSetParams(exec, replaced, &again));
  }
  for (int launch = 0; launch < kLaunches; ++launch)
    CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaDeviceSynchronize());
  std::printf("host node read the copy %d of %d times\n", slot.copies_seen, kLaunches);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFreeHost(slot.pinned));
  CHECK(cudaFree(device));
  return 0;
}

// How the graph's host node is added: the typed call, the generic cudaGraphAddNode, or the
// generic call and then replaced in the executable.
enum class HostNode { Typed, Generic, ReplacedInExecutable };

int builtInGraph(bool edge, HostNode how = HostNode::Typed) {
  int* device = nullptr;
  Slot slot;
  if (allocate(device, slot) != 0) return 1;
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t copy = nullptr;
  CHECK(cudaGraphAddMemcpyNode1D(&copy, graph, nullptr, 0, slot.pinned, device, kBytes,
                                 cudaMemcpyDeviceToHost));
  cudaGraphNode_t host = nullptr;
  if (how == HostNode::Typed) {
    const cudaHostNodeParams read{readSlot, &slot};
    CHECK(cudaGraphAddHostNode(&host, graph, edge ? &copy : nullptr, edge ? 1 : 0, &read));
  } else {
    cudaGraphNodeParams read{};
    read.type = cudaGraphNodeTypeHost;
    read.host.fn = readSlot;
    read.host.userData = &slot;
    CHECK(cudaGraphAddNode(&host, graph, edge ? &copy : nullptr, nullptr, edge ? 1 : 0, &read));
  }
  return launchAndRelease(graph, stream, device, slot,
                          how == HostNode::ReplacedInExecutable ? host : nullptr);
}

int capturedInGraph(bool forkAfterCopy) {
  int* device = nullptr;
  Slot slot;
  if (allocate(device, slot) != 0) return 1;
  cudaStream_t origin = nullptr;
  cudaStream_t forked = nullptr;
  CHECK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&forked, cudaStreamNonBlocking));
  cudaEvent_t fork = nullptr;
  cudaEvent_t join = nullptr;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  cudaGraph_t graph = nullptr;
  CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  if (!forkAfterCopy) CHECK(cudaEventRecord(fork, origin));
  CHECK(cudaMemcpyAsync(slot.pinned, device, kBytes, cudaMemcpyDeviceToHost, origin));
  if (forkAfterCopy) CHECK(cudaEventRecord(fork, origin));
  CHECK(cudaStreamWaitEvent(forked, fork, 0));
  CHECK(cudaLaunchHostFunc(forked, readSlot, &slot));
  CHECK(cudaEventRecord(join, forked));
  CHECK(cudaStreamWaitEvent(origin, join, 0));
  CHECK(cudaStreamEndCapture(origin, &graph));
  return launchAndRelease(graph, origin, device, slot);
}

// A graph whose only node reads the slot, after a copy into it on another stream.
int afterCopyOnAnotherStream(bool captured, bool event) {
  int* device = nullptr;
  Slot slot;
  if (allocate(device, slot) != 0) return 1;
  cudaStream_t copies = nullptr;
  cudaStream_t graphs = nullptr;
  CHECK(cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&graphs, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  if (captured) {
    CHECK(cudaStreamBeginCapture(graphs, cudaStreamCaptureModeGlobal));
    CHECK(cudaLaunchHostFunc(graphs, readSlot, &slot));
    CHECK(cudaStreamEndCapture(graphs, &graph));
  } else {
    CHECK(cudaGraphCreate(&graph, 0));
    const cudaHostNodeParams read{readSlot, &slot};
    cudaGraphNode_t host = nullptr;
    CHECK(cudaGraphAddHostNode(&host, graph, nullptr, 0, &read));
  }
  CHECK(cudaMemcpyAsync(slot.pinned, device, kBytes, cudaMemcpyDeviceToHost, copies));
  if (event) {
    cudaEvent_t copied = nullptr;
    CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
    CHECK(cudaEventRecord(copied, copies));
    CHECK(cudaStreamWaitEvent(graphs, copied, 0));
  }
  return launchAndRelease(graph, graphs, device, slot);
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: graph_host_functions <scenario>\n");
    return 2;
  }
  const std::string scenario = argv[1];
  if (scenario == "built-unordered") return builtInGraph(false);
  if (scenario == "built-edge") return builtInGraph(true);
  if (scenario == "captured-unordered") return capturedInGraph(false);
  if (scenario == "captured-ordered") return capturedInGraph(true);
  if (scenario == "built-other-stream") return afterCopyOnAnotherStream(false, false);
  if (scenario == "built-other-stream-event") return afterCopyOnAnotherStream(false, true);
  if (scenario == "captured-other-stream") return afterCopyOnAnotherStream(true, false);
  if (scenario == "captured-other-stream-event") return afterCopyOnAnotherStream(true, true);
  if (scenario == "generic-unordered") return builtInGraph(false, HostNode::Generic);
  if (scenario == "generic-edge") return builtInGraph(true, HostNode::Generic);
  if (scenario == "exec-set-unordered") return builtInGraph(false, HostNode::ReplacedInExecutable);
  if (scenario == "exec-set-edge") return builtInGraph(true, HostNode::ReplacedInExecutable);
  std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
  return 2;
}
