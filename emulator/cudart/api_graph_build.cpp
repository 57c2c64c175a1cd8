// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Graphs built node by node: cudaGraphCreate, the typed cudaGraphAdd*Node calls and the generic
// cudaGraphAddNode, edges added or removed afterwards, nodes destroyed, cloning (and finding a
// node's copy in a clone), and new parameters for kernel, copy and memset nodes (and, through the
// generic setters, host, event and child graph nodes), in the graph or in an executable made from
// it (cudaGraph*NodeSetParams, cudaGraphExec*NodeSetParams). Each node's operation is issued
// through the same code as the stream call it stands for, captured into the graph
// (Runtime::addGraphNode), so a launch runs it exactly like a captured one: after its dependencies,
// independent nodes concurrently.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "api_tracing.h"
#include "copy_operations.h"
#include "kernel_launch.h"
#include "kernel_table.h"
#include "not_emulated.h"
#include "runtime_operations.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

std::optional<std::vector<const GraphNode*>> dependencyList(const cudaGraphNode_t* dependencies,
                                                            std::size_t count) {
  if (count > 0 && dependencies == nullptr) {
    return std::nullopt;
  }
  std::vector<const GraphNode*> nodes;
  for (std::size_t index = 0; index < count; ++index) {
    if (dependencies[index] == nullptr) {
      return std::nullopt;
    }
    nodes.push_back(reinterpret_cast<const GraphNode*>(dependencies[index]));
  }
  return nodes;
}

// The checks every cudaGraphAdd*Node call shares, then the node's operation on the builder.
cudaError_t addNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                    std::size_t count,
                    const std::function<cudaError_t(cudaStream_t builder)>& enqueue) {
  const auto nodes = dependencyList(dependencies, count);
  if (node == nullptr || graph == nullptr || !nodes) {
    return cudaErrorInvalidValue;
  }
  return Runtime::instance().addGraphNode(graph, *nodes, enqueue, node);
}

cudaError_t createGraph(cudaGraph_t* graph, unsigned flags) {
  if (graph == nullptr || flags != 0) {
    return cudaErrorInvalidValue;
  }
  *graph = Runtime::instance().adoptGraph(std::make_unique<Graph>());
  return cudaSuccess;
}

cudaError_t kernelNode(const cudaKernelNodeParams* params, cudaStream_t builder) {
  if (params == nullptr) {
    return cudaErrorInvalidValue;
  }
  return launchKernel(KernelTable::instance().launchInfoByHostFunction(params->func),
                      params->gridDim, params->blockDim, params->kernelParams,
                      params->sharedMemBytes, builder, DefaultStream::Legacy, params->extra);
}

// `height` rows of `width` elements of 1, 2 or 4 bytes, rows `pitch` bytes apart, each element
// set to the low bytes of `value`: what the driver's cuMemsetD2D8/16/32 do.
cudaError_t memsetNode(const cudaMemsetParams* params, cudaStream_t builder) {
  if (params == nullptr ||
      (params->elementSize != 1 && params->elementSize != 2 && params->elementSize != 4)) {
    return cudaErrorInvalidValue;
  }
  const std::size_t rowBytes = params->width * params->elementSize;
  const std::size_t height = params->height;
  const std::size_t pitch = height > 1 ? params->pitch : rowBytes;
  auto* destination = static_cast<std::byte*>(params->dst);
  Runtime& runtime = Runtime::instance();
  const std::optional<Allocation> allocation = runtime.memory.find(destination);
  if (rowBytes == 0 || height == 0) {
    return cudaSuccess;
  }
  if (destination == nullptr || pitch < rowBytes ||
      reinterpret_cast<std::uintptr_t>(destination) % params->elementSize != 0 || !allocation ||
      !allocation->contains(destination, (height - 1) * pitch + rowBytes)) {
    return cudaErrorInvalidValue;
  }
  Stream* stream = runtime.resolveStream(builder, DefaultStream::Legacy);
  const unsigned value = params->value;
  const std::size_t elementSize = params->elementSize;
  runtime.submit(*stream, Work{OperationKind::Memset, [=] {
                                 for (std::size_t row = 0; row < height; ++row) {
                                   std::byte* at = destination + row * pitch;
                                   for (std::size_t byte = 0; byte < rowBytes;
                                        byte += elementSize) {
                                     // Little-endian: the element's low bytes come first.
                                     std::memcpy(at + byte, &value, elementSize);
                                   }
                                 }
                               }});
  return cudaSuccess;
}

cudaError_t hostNode(const cudaHostNodeParams* params, cudaStream_t builder) {
  if (params == nullptr || params->fn == nullptr) {
    return cudaErrorInvalidValue;
  }
  Runtime& runtime = Runtime::instance();
  runtime.submit(*runtime.resolveStream(builder, DefaultStream::Legacy),
                 hostFunctionWork(HostCall{params->fn, params->userData}));
  return cudaSuccess;
}

cudaError_t submitOnBuilder(cudaStream_t builder, Work work) {
  Runtime& runtime = Runtime::instance();
  runtime.submit(*runtime.resolveStream(builder, DefaultStream::Legacy), std::move(work));
  return cudaSuccess;
}

// An event record node records the event when it runs; a wait node waits for the event's latest
// record at the time it runs (on a GPU: at the time of the launch; work between the two is the
// emulator's only difference, and a program relying on it races on a GPU too).
cudaError_t eventNode(cudaEvent_t event, bool record, cudaStream_t builder) {
  if (Runtime::instance().resolveEvent(event) == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (record) {
    return submitOnBuilder(builder, Work{OperationKind::EventRecord,
                                         [event] { Runtime::instance().markEventReached(event); }});
  }
  return submitOnBuilder(builder, Work{OperationKind::EventWait, [event] {
                                         Runtime& runtime = Runtime::instance();
                                         Event* awaited = runtime.resolveEvent(event);
                                         CompletionPtr snapshot =
                                             awaited ? runtime.eventSnapshot(*awaited) : nullptr;
                                         if (snapshot) {
                                           snapshot->wait();
                                         }
                                       }});
}

// A child graph node runs a copy of the child as it is now, as the runtime's does.
cudaError_t childGraphNode(cudaGraph_t child, cudaStream_t builder) {
  Graph* graph = Runtime::instance().resolveGraph(child);
  if (graph == nullptr) {
    return cudaErrorInvalidValue;
  }
  auto exec = std::make_shared<const GraphExec>(*graph);
  return submitOnBuilder(builder, Work{OperationKind::Graph, [exec] { exec->run(); }});
}

bool dependsOn(const GraphNode* node, const GraphNode* ancestor) {
  return joinedInto({ancestor}, {node});
}

// `graph`'s own node behind a handle, or null.
GraphNode* ownedNode(Graph& graph, const GraphNode* node) {
  for (const auto& candidate : graph.nodes) {
    if (candidate.get() == node) {
      return candidate.get();
    }
  }
  return nullptr;
}

using EdgeChange = std::function<bool(Graph&, const std::vector<const GraphNode*>& sources,
                                      const std::vector<const GraphNode*>& targets)>;

// The edges from[i] -> to[i] of `graph`, changed by `change`, which says whether it could.
cudaError_t changeEdges(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                        std::size_t count, const EdgeChange& change) {
  const auto sources = dependencyList(from, count);
  const auto targets = dependencyList(to, count);
  if (!sources || !targets) {
    return cudaErrorInvalidValue;
  }
  bool changed = false;
  const bool known = Runtime::instance().changeGraph(
      graph, [&](Graph& found) { changed = change(found, *sources, *targets); });
  return known && changed ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t addDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                            const cudaGraphNode_t* to, std::size_t count) {
  return changeEdges(graph, from, to, count,
                     [](Graph& found, const auto& sources, const auto& targets) {
                       for (std::size_t index = 0; index < sources.size(); ++index) {
                         GraphNode* target = ownedNode(found, targets[index]);
                         const GraphNode* source = ownedNode(found, sources[index]);
                         // Both ends in this graph, no edge twice, none that closes a cycle.
                         if (target == nullptr || source == nullptr || source == target ||
                             dependsOn(source, target) ||
                             std::find(target->dependencies.begin(), target->dependencies.end(),
                                       source) != target->dependencies.end()) {
                           return false;
                         }
                         target->dependencies.push_back(source);
                       }
                       return true;
                     });
}

// Every edge named must exist; none is removed otherwise.
cudaError_t removeDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                               const cudaGraphNode_t* to, std::size_t count) {
  return changeEdges(
      graph, from, to, count, [](Graph& found, const auto& sources, const auto& targets) {
        auto exists = [&](std::size_t index) {
          const GraphNode* target = ownedNode(found, targets[index]);
          return target != nullptr &&
                 std::find(target->dependencies.begin(), target->dependencies.end(),
                           sources[index]) != target->dependencies.end();
        };
        for (std::size_t index = 0; index < sources.size(); ++index) {
          if (!exists(index)) {
            return false;
          }
        }
        for (std::size_t index = 0; index < sources.size(); ++index) {
          auto& dependencies = ownedNode(found, targets[index])->dependencies;
          dependencies.erase(std::find(dependencies.begin(), dependencies.end(), sources[index]));
        }
        return true;
      });
}

cudaError_t cloneGraph(cudaGraph_t* clone, cudaGraph_t original) {
  if (clone == nullptr) {
    return cudaErrorInvalidValue;
  }
  auto copy = std::make_unique<Graph>();
  const bool known = Runtime::instance().changeGraph(original, [&](Graph& found) {
    std::map<const GraphNode*, const GraphNode*> copyOf;
    for (const auto& node : found.nodes) {
      copy->nodes.push_back(std::make_unique<GraphNode>(GraphNode{node->work, {}, node.get()}));
      copyOf.emplace(node.get(), copy->nodes.back().get());
    }
    for (std::size_t index = 0; index < found.nodes.size(); ++index) {
      for (const GraphNode* dependency : found.nodes[index]->dependencies) {
        copy->nodes[index]->dependencies.push_back(copyOf.at(dependency));
      }
    }
    // The clone holds references of its own (a held object is copied, never assigned).
    for (const HeldUserObject& held : found.userObjects) {
      copy->userObjects.push_back(held);
    }
  });
  if (!known) {
    return cudaErrorInvalidValue;
  }
  *clone = Runtime::instance().adoptGraph(std::move(copy));
  return cudaSuccess;
}

cudaError_t findInClone(cudaGraphNode_t* cloneNode, cudaGraphNode_t original, cudaGraph_t clone) {
  if (cloneNode == nullptr || original == nullptr) {
    return cudaErrorInvalidValue;
  }
  const GraphNode* found = nullptr;
  Runtime::instance().changeGraph(clone, [&](Graph& graph) {
    for (const auto& node : graph.nodes) {
      if (node->clonedFrom == reinterpret_cast<const GraphNode*>(original)) {
        found = node.get();
      }
    }
  });
  if (found == nullptr) {
    return cudaErrorInvalidValue;
  }
  *cloneNode = reinterpret_cast<cudaGraphNode_t>(const_cast<GraphNode*>(found));
  return cudaSuccess;
}

// A graph allocation node: memory of the node's device from the pool cudaMallocAsync uses,
// allocated when the node is added and the graph's for the rest of the process (a GPU keeps the
// address the graph's too; the emulator never maps it out). The address goes back in the
// parameters.
cudaError_t memAllocNode(cudaMemAllocNodeParams* params, cudaStream_t builder) {
  if (params == nullptr || params->bytesize == 0 ||
      params->poolProps.allocType != cudaMemAllocationTypePinned ||
      params->poolProps.location.type != cudaMemLocationTypeDevice) {
    return cudaErrorInvalidValue;
  }
  if (!Runtime::instance().validDevice(params->poolProps.location.id)) {
    return cudaErrorInvalidDevice;
  }
  // Nodes are built on the current device's hidden stream.
  if (params->poolProps.location.id != Runtime::instance().currentDevice()) {
    return cudaErrorNotSupported;
  }
  return mallocAsync(&params->dptr, params->bytesize, builder, DefaultStream::Legacy);
}

// The memory an allocation (or free) node names; nothing for a node of another kind.
std::optional<GraphMemory> graphMemory(cudaGraphNode_t node, OperationKind kind) {
  if (node == nullptr) {
    return std::nullopt;
  }
  const Work& work = reinterpret_cast<const GraphNode*>(node)->work;
  return work.kind == kind ? work.memory : std::nullopt;
}

cudaError_t memAllocNodeParams(cudaGraphNode_t node, cudaMemAllocNodeParams* params) {
  const std::optional<GraphMemory> memory = graphMemory(node, OperationKind::Allocation);
  if (!memory || params == nullptr) {
    return cudaErrorInvalidValue;
  }
  *params = cudaMemAllocNodeParams{};
  params->poolProps.allocType = cudaMemAllocationTypePinned;
  params->poolProps.location.type = cudaMemLocationTypeDevice;
  params->poolProps.location.id = memory->device;
  params->bytesize = memory->bytes;
  params->dptr = memory->address;
  return cudaSuccess;
}

cudaError_t memFreeNodeParams(cudaGraphNode_t node, void* address) {
  const std::optional<GraphMemory> memory = graphMemory(node, OperationKind::Free);
  if (!memory || address == nullptr) {
    return cudaErrorInvalidValue;
  }
  *static_cast<void**>(address) = memory->address;
  return cudaSuccess;
}

using NodeOperation = std::function<cudaError_t(cudaStream_t builder)>;

// The work node `node` of `kind` runs with new parameters, built by the code that adds such a
// node (with its checks) into a graph of its own.
cudaError_t nodeWork(cudaGraphNode_t node, OperationKind kind, const NodeOperation& enqueue,
                     Work& work) {
  if (node == nullptr) {
    return cudaErrorInvalidValue;
  }
  Runtime& runtime = Runtime::instance();
  const cudaGraph_t scratch = runtime.adoptGraph(std::make_unique<Graph>());
  cudaGraphNode_t built = nullptr;
  const cudaError_t result = runtime.addGraphNode(scratch, {}, enqueue, &built);
  if (result == cudaSuccess) {
    // An operation that enqueues nothing (an empty copy) is still a node of its type.
    work = Work{kind, reinterpret_cast<const GraphNode*>(built)->work.body};
  }
  runtime.destroyGraph(scratch);
  return result;
}

// A node's new parameters in the graph that holds it: instantiations from now on run them.
cudaError_t setNodeParams(cudaGraphNode_t node, OperationKind kind, const NodeOperation& enqueue) {
  Work work{kind, {}};
  if (const cudaError_t result = nodeWork(node, kind, enqueue, work); result != cudaSuccess) {
    return result;
  }
  const bool changed = Runtime::instance().changeGraphNode(reinterpret_cast<const GraphNode*>(node),
                                                           [&](GraphNode& found) {
                                                             if (found.work.kind != kind) {
                                                               return false;
                                                             }
                                                             found.work = std::move(work);
                                                             return true;
                                                           });
  return changed ? cudaSuccess : cudaErrorInvalidValue;
}

// A node's new parameters in one executable: its launches from the next on run them (the
// runtime's graph keeps its own).
cudaError_t setExecNodeParams(cudaGraphExec_t exec, cudaGraphNode_t node, OperationKind kind,
                              const NodeOperation& enqueue) {
  Work work{kind, {}};
  if (const cudaError_t result = nodeWork(node, kind, enqueue, work); result != cudaSuccess) {
    return result;
  }
  const auto* graphNode = reinterpret_cast<const GraphNode*>(node);
  return Runtime::instance().changeGraphExec(
             exec, [&](GraphExec& changed) { return changed.setWork(graphNode, std::move(work)); })
             ? cudaSuccess
             : cudaErrorInvalidValue;
}

NodeOperation copy3DNode(const cudaMemcpy3DParms* params) {
  return [params](cudaStream_t builder) {
    return copy3D(params, builder, DefaultStream::Legacy, ApiFlavor::Asynchronous);
  };
}

NodeOperation copy1DNode(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  return [=](cudaStream_t builder) {
    return copyOnStream(dst, src, count, kind, builder, DefaultStream::Legacy,
                        ApiFlavor::Asynchronous);
  };
}

// What a generic node's parameters (cudaGraphNodeParams) add: the operation the typed call of
// the node's type adds, with its checks. An allocation node's address goes back in the
// parameters. Nullopt for the types not emulated (conditional, external semaphore nodes).
struct GenericNode {
  OperationKind kind = OperationKind::Marker;
  NodeOperation enqueue;
};

std::optional<GenericNode> genericNode(cudaGraphNodeParams* params) {
  if (params == nullptr) {
    return std::nullopt;
  }
  switch (params->type) {
  case cudaGraphNodeTypeKernel: {
    cudaKernelNodeParams kernel{};
    kernel.func = params->kernel.func;
    kernel.gridDim = params->kernel.gridDim;
    kernel.blockDim = params->kernel.blockDim;
    kernel.sharedMemBytes = params->kernel.sharedMemBytes;
    kernel.kernelParams = params->kernel.kernelParams;
    kernel.extra = params->kernel.extra;
    return GenericNode{OperationKind::Kernel,
                       [kernel](cudaStream_t builder) { return kernelNode(&kernel, builder); }};
  }
  case cudaGraphNodeTypeMemcpy:
    return GenericNode{OperationKind::Memcpy, copy3DNode(&params->memcpy.copyParams)};
  case cudaGraphNodeTypeMemset: {
    cudaMemsetParams set{};
    set.dst = params->memset.dst;
    set.pitch = params->memset.pitch;
    set.value = params->memset.value;
    set.elementSize = params->memset.elementSize;
    set.width = params->memset.width;
    set.height = params->memset.height;
    return GenericNode{OperationKind::Memset,
                       [set](cudaStream_t builder) { return memsetNode(&set, builder); }};
  }
  case cudaGraphNodeTypeHost: {
    const cudaHostNodeParams host{params->host.fn, params->host.userData};
    return GenericNode{OperationKind::HostFunction,
                       [host](cudaStream_t builder) { return hostNode(&host, builder); }};
  }
  case cudaGraphNodeTypeGraph:
    return GenericNode{OperationKind::Graph, [child = params->graph.graph](cudaStream_t builder) {
                         return childGraphNode(child, builder);
                       }};
  case cudaGraphNodeTypeEmpty:
    return GenericNode{OperationKind::Marker, [](cudaStream_t) { return cudaSuccess; }};
  case cudaGraphNodeTypeWaitEvent:
  case cudaGraphNodeTypeEventRecord: {
    const bool record = params->type == cudaGraphNodeTypeEventRecord;
    const cudaEvent_t event = record ? params->eventRecord.event : params->eventWait.event;
    return GenericNode{
        record ? OperationKind::EventRecord : OperationKind::EventWait,
        [event, record](cudaStream_t builder) { return eventNode(event, record, builder); }};
  }
  case cudaGraphNodeTypeMemAlloc:
    return GenericNode{OperationKind::Allocation, [params](cudaStream_t builder) {
                         cudaMemAllocNodeParams allocation{};
                         allocation.poolProps = params->alloc.poolProps;
                         allocation.accessDescs = params->alloc.accessDescs;
                         allocation.accessDescCount = params->alloc.accessDescCount;
                         allocation.bytesize = params->alloc.bytesize;
                         const cudaError_t result = memAllocNode(&allocation, builder);
                         params->alloc.dptr = allocation.dptr;
                         return result;
                       }};
  case cudaGraphNodeTypeMemFree:
    return GenericNode{OperationKind::Free, [address = params->free.dptr](cudaStream_t builder) {
                         return freeAsync(address, builder, DefaultStream::Legacy);
                       }};
  default:
    return std::nullopt;
  }
}

cudaError_t addGenericNode(cudaGraphNode_t* node, cudaGraph_t graph,
                           const cudaGraphNode_t* dependencies, std::size_t count,
                           cudaGraphNodeParams* params) {
  const std::optional<GenericNode> generic = genericNode(params);
  if (!generic) {
    if (params == nullptr) {
      return cudaErrorInvalidValue;
    }
    // Said once per type, as a function not emulated is: conditional nodes branch on values
    // device code sets, which the emulator does not run.
    return static_cast<cudaError_t>(reportNotEmulated(
        params->type == cudaGraphNodeTypeConditional ? "cudaGraphAddNode of a conditional node"
                                                     : "cudaGraphAddNode of this node type",
        cudaErrorNotSupported, "cudaErrorNotSupported"));
  }
  return addNode(node, graph, dependencies, count, generic->enqueue);
}

// Allocation and free nodes keep their parameters (as on a GPU); the other types take new ones.
std::optional<GenericNode> changeableNode(cudaGraphNodeParams* params) {
  std::optional<GenericNode> generic = genericNode(params);
  if (generic && (generic->kind == OperationKind::Allocation ||
                  generic->kind == OperationKind::Free || generic->kind == OperationKind::Marker)) {
    return std::nullopt;
  }
  return generic;
}

} // namespace

extern "C" {

cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaGraphCreate, v10000, createGraph(pGraph, flags), pGraph, flags);
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams* pNodeParams) {
  STREAMRACE_EMU_TRACED(
      cudaGraphAddKernelNode, v10000,
      addNode(pGraphNode, graph, pDependencies, numDependencies,
              [&](cudaStream_t builder) { return kernelNode(pNodeParams, builder); }),
      pGraphNode, graph, pDependencies, numDependencies, pNodeParams);
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const struct cudaMemcpy3DParms* pCopyParams) {
  STREAMRACE_EMU_TRACED(
      cudaGraphAddMemcpyNode, v10000,
      addNode(pGraphNode, graph, pDependencies, numDependencies, copy3DNode(pCopyParams)),
      pGraphNode, graph, pDependencies, numDependencies, pCopyParams);
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     void* dst, const void* src, size_t count,
                                     enum cudaMemcpyKind kind) {
  STREAMRACE_EMU_TRACED(
      cudaGraphAddMemcpyNode1D, v11010,
      addNode(pGraphNode, graph, pDependencies, numDependencies, copy1DNode(dst, src, count, kind)),
      pGraphNode, graph, pDependencies, numDependencies, dst, src, count, kind);
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const struct cudaMemsetParams* pMemsetParams) {
  STREAMRACE_EMU_TRACED(
      cudaGraphAddMemsetNode, v10000,
      addNode(pGraphNode, graph, pDependencies, numDependencies,
              [&](cudaStream_t builder) { return memsetNode(pMemsetParams, builder); }),
      pGraphNode, graph, pDependencies, numDependencies, pMemsetParams);
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                 const struct cudaHostNodeParams* pNodeParams) {
  STREAMRACE_EMU_TRACED(
      cudaGraphAddHostNode, v10000,
      addNode(pGraphNode, graph, pDependencies, numDependencies,
              [&](cudaStream_t builder) { return hostNode(pNodeParams, builder); }),
      pGraphNode, graph, pDependencies, numDependencies, pNodeParams);
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t* pDependencies, size_t numDependencies) {
  STREAMRACE_EMU_TRACED(cudaGraphAddEmptyNode, v10000,
                        addNode(pGraphNode, graph, pDependencies, numDependencies,
                                [](cudaStream_t) { return cudaSuccess; }),
                        pGraphNode, graph, pDependencies, numDependencies);
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t* pDependencies,
                                        size_t numDependencies, cudaEvent_t event) {
  STREAMRACE_EMU_TRACED(
      cudaGraphAddEventRecordNode, v11010,
      addNode(pGraphNode, graph, pDependencies, numDependencies,
              [&](cudaStream_t builder) { return eventNode(event, true, builder); }),
      pGraphNode, graph, pDependencies, numDependencies, event);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                      cudaEvent_t event) {
  STREAMRACE_EMU_TRACED(
      cudaGraphAddEventWaitNode, v11010,
      addNode(pGraphNode, graph, pDependencies, numDependencies,
              [&](cudaStream_t builder) { return eventNode(event, false, builder); }),
      pGraphNode, graph, pDependencies, numDependencies, event);
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph) {
  STREAMRACE_EMU_TRACED(
      cudaGraphAddChildGraphNode, v10000,
      addNode(pGraphNode, graph, pDependencies, numDependencies,
              [&](cudaStream_t builder) { return childGraphNode(childGraph, builder); }),
      pGraphNode, graph, pDependencies, numDependencies, childGraph);
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     struct cudaMemAllocNodeParams* nodeParams) {
  STREAMRACE_EMU_TRACED(
      cudaGraphAddMemAllocNode, v11040,
      addNode(pGraphNode, graph, pDependencies, numDependencies,
              [&](cudaStream_t builder) { return memAllocNode(nodeParams, builder); }),
      pGraphNode, graph, pDependencies, numDependencies, nodeParams);
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                    void* dptr) {
  STREAMRACE_EMU_TRACED(cudaGraphAddMemFreeNode, v11040,
                        addNode(pGraphNode, graph, pDependencies, numDependencies,
                                [&](cudaStream_t builder) {
                                  return freeAsync(dptr, builder, DefaultStream::Legacy);
                                }),
                        pGraphNode, graph, pDependencies, numDependencies, dptr);
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
                                           struct cudaMemAllocNodeParams* paramsOut) {
  STREAMRACE_EMU_TRACED(cudaGraphMemAllocNodeGetParams, v11040, memAllocNodeParams(node, paramsOut),
                        node, paramsOut);
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptrOut) {
  STREAMRACE_EMU_TRACED(cudaGraphMemFreeNodeGetParams, v11040, memFreeNodeParams(node, dptrOut),
                        node, dptrOut);
}

// Graph memory is never handed back (memAllocNode): there is nothing to trim.
cudaError_t cudaDeviceGraphMemTrim(int device) {
  STREAMRACE_EMU_TRACED(
      cudaDeviceGraphMemTrim, v11040,
      Runtime::instance().validDevice(device) ? cudaSuccess : cudaErrorInvalidDevice, device);
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData* edgeData,
                                     size_t numDependencies) {
  STREAMRACE_EMU_TRACED(cudaGraphAddDependencies, v12030,
                        addDependencies(graph, from, to, numDependencies), graph, from, to,
                        edgeData, numDependencies);
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* pNode, cudaGraphNode_t originalNode,
                                     cudaGraph_t clonedGraph) {
  STREAMRACE_EMU_TRACED(cudaGraphNodeFindInClone, v10000,
                        findInClone(pNode, originalNode, clonedGraph), pNode, originalNode,
                        clonedGraph);
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                        const cudaGraphNode_t* to,
                                        const cudaGraphEdgeData* edgeData, size_t numDependencies) {
  STREAMRACE_EMU_TRACED(cudaGraphRemoveDependencies, v12030,
                        removeDependencies(graph, from, to, numDependencies), graph, from, to,
                        edgeData, numDependencies);
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  STREAMRACE_EMU_TRACED(cudaGraphDestroyNode, v10000,
                        node != nullptr && Runtime::instance().destroyGraphNode(
                                               reinterpret_cast<const GraphNode*>(node))
                            ? cudaSuccess
                            : cudaErrorInvalidValue,
                        node);
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaKernelNodeParams* pNodeParams) {
  STREAMRACE_EMU_TRACED(
      cudaGraphKernelNodeSetParams, v10000,
      setNodeParams(node, OperationKind::Kernel,
                    [&](cudaStream_t builder) { return kernelNode(pNodeParams, builder); }),
      node, pNodeParams);
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaMemcpy3DParms* pNodeParams) {
  STREAMRACE_EMU_TRACED(cudaGraphMemcpyNodeSetParams, v10000,
                        setNodeParams(node, OperationKind::Memcpy, copy3DNode(pNodeParams)), node,
                        pNodeParams);
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src,
                                           size_t count, enum cudaMemcpyKind kind) {
  STREAMRACE_EMU_TRACED(
      cudaGraphMemcpyNodeSetParams1D, v11010,
      setNodeParams(node, OperationKind::Memcpy, copy1DNode(dst, src, count, kind)), node, dst, src,
      count, kind);
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaMemsetParams* pNodeParams) {
  STREAMRACE_EMU_TRACED(
      cudaGraphMemsetNodeSetParams, v10000,
      setNodeParams(node, OperationKind::Memset,
                    [&](cudaStream_t builder) { return memsetNode(pNodeParams, builder); }),
      node, pNodeParams);
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams* pNodeParams) {
  STREAMRACE_EMU_TRACED(
      cudaGraphExecKernelNodeSetParams, v10010,
      setExecNodeParams(hGraphExec, node, OperationKind::Kernel,
                        [&](cudaStream_t builder) { return kernelNode(pNodeParams, builder); }),
      hGraphExec, node, pNodeParams);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemcpy3DParms* pNodeParams) {
  STREAMRACE_EMU_TRACED(
      cudaGraphExecMemcpyNodeSetParams, v10020,
      setExecNodeParams(hGraphExec, node, OperationKind::Memcpy, copy3DNode(pNodeParams)),
      hGraphExec, node, pNodeParams);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                               void* dst, const void* src, size_t count,
                                               enum cudaMemcpyKind kind) {
  STREAMRACE_EMU_TRACED(
      cudaGraphExecMemcpyNodeSetParams1D, v11010,
      setExecNodeParams(hGraphExec, node, OperationKind::Memcpy, copy1DNode(dst, src, count, kind)),
      hGraphExec, node, dst, src, count, kind);
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams* pNodeParams) {
  STREAMRACE_EMU_TRACED(
      cudaGraphExecMemsetNodeSetParams, v10020,
      setExecNodeParams(hGraphExec, node, OperationKind::Memset,
                        [&](cudaStream_t builder) { return memsetNode(pNodeParams, builder); }),
      hGraphExec, node, pNodeParams);
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                             const cudaGraphNode_t* pDependencies,
                             const cudaGraphEdgeData* dependencyData, size_t numDependencies,
                             struct cudaGraphNodeParams* nodeParams) {
  STREAMRACE_EMU_TRACED(
      cudaGraphAddNode, v12030,
      addGenericNode(pGraphNode, graph, pDependencies, numDependencies, nodeParams), pGraphNode,
      graph, pDependencies, dependencyData, numDependencies, nodeParams);
}

cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams* nodeParams) {
  const std::optional<GenericNode> generic = changeableNode(nodeParams);
  STREAMRACE_EMU_TRACED(cudaGraphNodeSetParams, v12020,
                        generic ? setNodeParams(node, generic->kind, generic->enqueue)
                                : cudaErrorInvalidValue,
                        node, nodeParams);
}

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                       struct cudaGraphNodeParams* nodeParams) {
  const std::optional<GenericNode> generic = changeableNode(nodeParams);
  STREAMRACE_EMU_TRACED(cudaGraphExecNodeSetParams, v12020,
                        generic
                            ? setExecNodeParams(graphExec, node, generic->kind, generic->enqueue)
                            : cudaErrorInvalidValue,
                        graphExec, node, nodeParams);
}

cudaError_t cudaGraphClone(cudaGraph_t* pGraphClone, cudaGraph_t originalGraph) {
  STREAMRACE_EMU_TRACED(cudaGraphClone, v10000, cloneGraph(pGraphClone, originalGraph), pGraphClone,
                        originalGraph);
}

} // extern "C"
