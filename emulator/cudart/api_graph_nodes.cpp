// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What programs ask of captured graphs beyond capture and launch: their nodes and edges, a node's
// type, a host node's function (which an executable may replace), the capture's dependency set,
// user objects that graphs keep alive, and the graph memory attributes. Conditional nodes and
// capture into an existing graph are not emulated: those calls return cudaErrorNotSupported (the
// calls that add nodes are in api_graph_build.cpp).
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <cstdint>
#include <memory>

#include "api_tracing.h"
#include "not_emulated.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

// Copies `count` handles out the way the runtime does: with a null array only the count is
// wanted; otherwise at most *capacity entries are written and *capacity says how many exist.
template <typename Handle>
cudaError_t listOut(const std::vector<const GraphNode*>& nodes, Handle* out,
                    std::size_t* capacity) {
  if (capacity == nullptr) {
    return cudaErrorInvalidValue;
  }
  if (out != nullptr) {
    for (std::size_t index = 0; index < nodes.size() && index < *capacity; ++index) {
      out[index] = reinterpret_cast<Handle>(const_cast<GraphNode*>(nodes[index]));
    }
  }
  *capacity = nodes.size();
  return cudaSuccess;
}

cudaError_t graphNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* numNodes) {
  std::vector<const GraphNode*> all;
  if (!Runtime::instance().changeGraph(graph, [&](Graph& found) {
        for (const auto& node : found.nodes) {
          all.push_back(node.get());
        }
      })) {
    return cudaErrorInvalidValue;
  }
  return listOut(all, nodes, numNodes);
}

cudaError_t nodeDependencies(cudaGraphNode_t node, cudaGraphNode_t* dependencies,
                             cudaGraphEdgeData* edgeData, std::size_t* count) {
  if (node == nullptr) {
    return cudaErrorInvalidValue;
  }
  const auto* graphNode = reinterpret_cast<const GraphNode*>(node);
  if (edgeData != nullptr && dependencies != nullptr && count != nullptr) {
    // Every captured edge is a plain full dependency: default edge data.
    for (std::size_t index = 0; index < graphNode->dependencies.size() && index < *count; ++index) {
      edgeData[index] = cudaGraphEdgeData{};
    }
  }
  return listOut(graphNode->dependencies, dependencies, count);
}

cudaGraphNodeType nodeType(OperationKind kind) {
  switch (kind) {
  case OperationKind::Memcpy:
    return cudaGraphNodeTypeMemcpy;
  case OperationKind::Memset:
    return cudaGraphNodeTypeMemset;
  case OperationKind::Kernel:
    return cudaGraphNodeTypeKernel;
  case OperationKind::HostFunction:
    return cudaGraphNodeTypeHost;
  case OperationKind::EventRecord:
    return cudaGraphNodeTypeEventRecord;
  case OperationKind::EventWait:
    return cudaGraphNodeTypeWaitEvent;
  case OperationKind::Allocation:
    return cudaGraphNodeTypeMemAlloc;
  case OperationKind::Free:
    return cudaGraphNodeTypeMemFree;
  case OperationKind::Graph:
    return cudaGraphNodeTypeGraph;
  case OperationKind::Marker:
    break;
  }
  return cudaGraphNodeTypeEmpty;
}

cudaError_t getNodeType(cudaGraphNode_t node, cudaGraphNodeType* type) {
  if (node == nullptr || type == nullptr) {
    return cudaErrorInvalidValue;
  }
  *type = nodeType(reinterpret_cast<const GraphNode*>(node)->work.kind);
  return cudaSuccess;
}

cudaError_t hostNodeParams(cudaGraphNode_t node, cudaHostNodeParams* params) {
  if (node == nullptr || params == nullptr) {
    return cudaErrorInvalidValue;
  }
  const std::optional<HostCall>& host = reinterpret_cast<const GraphNode*>(node)->work.host;
  if (!host) {
    return cudaErrorInvalidValue;
  }
  *params = cudaHostNodeParams{host->function, host->data};
  return cudaSuccess;
}

cudaError_t setExecHostNodeParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                  const cudaHostNodeParams* params) {
  if (node == nullptr || params == nullptr || params->fn == nullptr) {
    return cudaErrorInvalidValue;
  }
  const HostCall call{params->fn, params->userData};
  const auto* graphNode = reinterpret_cast<const GraphNode*>(node);
  return Runtime::instance().changeGraphExec(
             exec,
             [&](GraphExec& changed) { return changed.setWork(graphNode, hostFunctionWork(call)); })
             ? cudaSuccess
             : cudaErrorInvalidValue;
}

cudaError_t updateCaptureDependencies(cudaStream_t handle, cudaGraphNode_t* dependencies,
                                      std::size_t count, unsigned flags, DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (flags != cudaStreamAddCaptureDependencies && flags != cudaStreamSetCaptureDependencies) {
    return cudaErrorInvalidValue;
  }
  if (count > 0 && dependencies == nullptr) {
    return cudaErrorInvalidValue;
  }
  std::vector<const GraphNode*> nodes;
  nodes.reserve(count);
  for (std::size_t index = 0; index < count; ++index) {
    nodes.push_back(reinterpret_cast<const GraphNode*>(dependencies[index]));
  }
  return runtime.updateCaptureDependencies(*stream, nodes,
                                           flags == cudaStreamAddCaptureDependencies);
}

cudaError_t createUserObject(cudaUserObject_t* object, void* pointer, cudaHostFn_t destroy,
                             unsigned references, unsigned flags) {
  if (object == nullptr || destroy == nullptr || references == 0 ||
      flags != cudaUserObjectNoDestructorSync) {
    return cudaErrorInvalidValue;
  }
  *object = reinterpret_cast<cudaUserObject_t>(
      std::make_unique<UserObject>(pointer, destroy, references).release());
  return cudaSuccess;
}

cudaError_t changeReferences(cudaUserObject_t object, unsigned count, bool retain) {
  if (object == nullptr || count == 0) {
    return cudaErrorInvalidValue;
  }
  auto* userObject = reinterpret_cast<UserObject*>(object);
  if (retain) {
    userObject->retain(count);
  } else {
    userObject->release(count);
  }
  return cudaSuccess;
}

// With cudaGraphUserObjectMove the graph takes over references the caller held; otherwise it
// takes new ones.
cudaError_t graphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned count,
                                  unsigned flags) {
  if (object == nullptr || count == 0 || (flags & ~unsigned{cudaGraphUserObjectMove}) != 0) {
    return cudaErrorInvalidValue;
  }
  auto* userObject = reinterpret_cast<UserObject*>(object);
  const bool known = Runtime::instance().changeGraph(graph, [&](Graph& found) {
    if ((flags & cudaGraphUserObjectMove) == 0) {
      userObject->retain(count);
    }
    found.userObjects.emplace_back(userObject, count);
  });
  return known ? cudaSuccess : cudaErrorInvalidValue;
}

// The emulator keeps no memory aside for graphs: every usage figure is zero, and only the
// high watermarks can be "reset" (to zero, the one value the runtime accepts).
cudaError_t graphMemoryAttribute(int device, cudaGraphMemAttributeType attribute, void* value,
                                 bool set) {
  if (!Runtime::instance().validDevice(device)) {
    return cudaErrorInvalidDevice;
  }
  if (value == nullptr) {
    return cudaErrorInvalidValue;
  }
  auto* bytes = static_cast<std::uint64_t*>(value);
  switch (attribute) {
  case cudaGraphMemAttrUsedMemCurrent:
  case cudaGraphMemAttrReservedMemCurrent:
    if (set) {
      return cudaErrorInvalidValue;
    }
    *bytes = 0;
    return cudaSuccess;
  case cudaGraphMemAttrUsedMemHigh:
  case cudaGraphMemAttrReservedMemHigh:
    if (set) {
      return *bytes == 0 ? cudaSuccess : cudaErrorInvalidValue;
    }
    *bytes = 0;
    return cudaSuccess;
  }
  return cudaErrorInvalidValue;
}

} // namespace

extern "C" {

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  STREAMRACE_EMU_TRACED(cudaGraphGetNodes, v10000, graphNodes(graph, nodes, numNodes), graph, nodes,
                        numNodes);
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* pDependencies,
                                         cudaGraphEdgeData* edgeData, size_t* pNumDependencies) {
  STREAMRACE_EMU_TRACED(cudaGraphNodeGetDependencies, v12030,
                        nodeDependencies(node, pDependencies, edgeData, pNumDependencies), node,
                        pDependencies, edgeData, pNumDependencies);
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType* pType) {
  STREAMRACE_EMU_TRACED(cudaGraphNodeGetType, v10000, getNodeType(node, pType), node, pType);
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node,
                                       struct cudaHostNodeParams* pNodeParams) {
  STREAMRACE_EMU_TRACED(cudaGraphHostNodeGetParams, v10000, hostNodeParams(node, pNodeParams), node,
                        pNodeParams);
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const struct cudaHostNodeParams* pNodeParams) {
  STREAMRACE_EMU_TRACED(cudaGraphExecHostNodeSetParams, v10020,
                        setExecHostNodeParams(hGraphExec, node, pNodeParams), hGraphExec, node,
                        pNodeParams);
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* pHandleOut,
                                             cudaGraph_t graph, unsigned int defaultLaunchValue,
                                             unsigned int flags) {
  // Conditional nodes branch on values device code sets, which the emulator does not run.
  STREAMRACE_EMU_TRACED(
      cudaGraphConditionalHandleCreate, v12030,
      static_cast<cudaError_t>(reportNotEmulated("cudaGraphConditionalHandleCreate",
                                                 cudaErrorNotSupported, "cudaErrorNotSupported")),
      pHandleOut, graph, defaultLaunchValue, flags);
}

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* dependencies,
                                          const cudaGraphEdgeData* dependencyData,
                                          size_t numDependencies, cudaStreamCaptureMode mode) {
  STREAMRACE_EMU_TRACED(cudaStreamBeginCaptureToGraph, v12030, cudaErrorNotSupported, stream, graph,
                        dependencies, dependencyData, numDependencies, mode);
}

cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                               const cudaGraphNode_t* dependencies,
                                               const cudaGraphEdgeData* dependencyData,
                                               size_t numDependencies, cudaStreamCaptureMode mode) {
  STREAMRACE_EMU_TRACED(cudaStreamBeginCaptureToGraph_ptsz, v12030, cudaErrorNotSupported, stream,
                        graph, dependencies, dependencyData, numDependencies, mode);
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                const cudaGraphEdgeData* dependencyData,
                                                size_t numDependencies, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaStreamUpdateCaptureDependencies, v12030,
                        updateCaptureDependencies(stream, dependencies, numDependencies, flags,
                                                  DefaultStream::Legacy),
                        stream, dependencies, dependencyData, numDependencies, flags);
}

cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream,
                                                     cudaGraphNode_t* dependencies,
                                                     const cudaGraphEdgeData* dependencyData,
                                                     size_t numDependencies, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaStreamUpdateCaptureDependencies_ptsz, v12030,
                        updateCaptureDependencies(stream, dependencies, numDependencies, flags,
                                                  DefaultStream::PerThread),
                        stream, dependencies, dependencyData, numDependencies, flags);
}

cudaError_t cudaUserObjectCreate(cudaUserObject_t* objectOut, void* ptr, cudaHostFn_t destroy,
                                 unsigned int initialRefcount, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaUserObjectCreate, v11030,
                        createUserObject(objectOut, ptr, destroy, initialRefcount, flags),
                        objectOut, ptr, destroy, initialRefcount, flags);
}

cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count) {
  STREAMRACE_EMU_TRACED(cudaUserObjectRetain, v11030, changeReferences(object, count, true), object,
                        count);
}

cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
  STREAMRACE_EMU_TRACED(cudaUserObjectRelease, v11030, changeReferences(object, count, false),
                        object, count);
}

cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                      unsigned int count, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaGraphRetainUserObject, v11030,
                        graphRetainUserObject(graph, object, count, flags), graph, object, count,
                        flags);
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                           void* value) {
  STREAMRACE_EMU_TRACED(cudaDeviceGetGraphMemAttribute, v11040,
                        graphMemoryAttribute(device, attr, value, false), device, attr, value);
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                           void* value) {
  STREAMRACE_EMU_TRACED(cudaDeviceSetGraphMemAttribute, v11040,
                        graphMemoryAttribute(device, attr, value, true), device, attr, value);
}

} // extern "C"
