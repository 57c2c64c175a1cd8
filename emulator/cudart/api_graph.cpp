// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Stream capture and graph launch: enough to capture a stream region (with fork/join through
// events) into a graph, instantiate it, update the executable from a graph of the same shape,
// and launch it on a stream.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include "api_tracing.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

thread_local cudaStreamCaptureMode captureModeOfThread = cudaStreamCaptureModeGlobal;

cudaError_t beginCapture(cudaStream_t handle, cudaStreamCaptureMode mode, DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed) {
    return cudaErrorInvalidValue;
  }
  return runtime.beginCapture(*stream, mode);
}

cudaError_t endCapture(cudaStream_t handle, cudaGraph_t* graph, DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (graph == nullptr) {
    return cudaErrorInvalidValue;
  }
  return runtime.endCapture(*stream, graph);
}

cudaError_t isCapturing(cudaStream_t handle, cudaStreamCaptureStatus* status, DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (status == nullptr) {
    return cudaErrorInvalidValue;
  }
  *status =
      runtime.isCapturing(*stream) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

cudaError_t captureInfo(cudaStream_t handle, cudaStreamCaptureStatus* status,
                        unsigned long long* id, cudaGraph_t* graph,
                        const cudaGraphNode_t** dependencies, const cudaGraphEdgeData** edgeData,
                        size_t* dependencyCount, DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (status == nullptr) {
    return cudaErrorInvalidValue;
  }
  std::optional<Runtime::CaptureInfo> info = runtime.captureInfo(*stream);
  *status = info ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (!info) {
    return cudaSuccess;
  }
  if (id != nullptr) {
    *id = info->id;
  }
  if (graph != nullptr) {
    *graph = reinterpret_cast<cudaGraph_t>(info->graph);
  }
  if (dependencies != nullptr) {
    // The runtime hands out node handles as an array of opaque pointers; ours are the nodes.
    *dependencies =
        reinterpret_cast<const cudaGraphNode_t*>(const_cast<GraphNode**>(info->frontier->data()));
  }
  if (edgeData != nullptr) {
    // Every captured edge is a plain full dependency.
    *edgeData = nullptr;
  }
  if (dependencyCount != nullptr) {
    *dependencyCount = info->frontier->size();
  }
  return cudaSuccess;
}

cudaError_t instantiate(cudaGraphExec_t* exec, cudaGraph_t graphHandle) {
  Runtime& runtime = Runtime::instance();
  if (exec == nullptr) {
    return cudaErrorInvalidValue;
  }
  Graph* graph = runtime.resolveGraph(graphHandle);
  if (graph == nullptr) {
    return cudaErrorInvalidValue;
  }
  *exec = runtime.instantiate(*graph);
  return cudaSuccess;
}

cudaError_t launchGraph(cudaGraphExec_t execHandle, cudaStream_t handle, DefaultStream zero) {
  Runtime& runtime = Runtime::instance();
  std::shared_ptr<const GraphExec> exec = runtime.resolveGraphExec(execHandle);
  if (exec == nullptr) {
    return cudaErrorInvalidValue;
  }
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  runtime.submit(*stream, Work{OperationKind::Graph, [exec] { exec->run(); }});
  return cudaSuccess;
}

// Whether the update was made, and why not, go to `resultInfo` when the program gives one.
cudaError_t updateExec(cudaGraphExec_t exec, cudaGraph_t graphHandle,
                       cudaGraphExecUpdateResultInfo* resultInfo) {
  Runtime& runtime = Runtime::instance();
  Graph* graph = runtime.resolveGraph(graphHandle);
  cudaGraphExecUpdateResultInfo outcome{cudaGraphExecUpdateSuccess, nullptr, nullptr};
  cudaError_t result = cudaSuccess;
  if (graph == nullptr || runtime.resolveGraphExec(exec) == nullptr) {
    outcome.result = cudaGraphExecUpdateError;
    result = cudaErrorInvalidValue;
  } else {
    std::optional<GraphExec::UpdateFailure> failure;
    runtime.changeGraphExec(exec, [&](GraphExec& changed) {
      failure = changed.update(*graph);
      return !failure;
    });
    if (failure) {
      outcome.result = failure->result;
      outcome.errorNode = reinterpret_cast<cudaGraphNode_t>(const_cast<GraphNode*>(failure->node));
      result = cudaErrorGraphExecUpdateFailure;
    }
  }
  if (resultInfo != nullptr) {
    *resultInfo = outcome;
  }
  return result;
}

cudaError_t exchangeCaptureMode(cudaStreamCaptureMode* mode) {
  if (mode == nullptr) {
    return cudaErrorInvalidValue;
  }
  std::swap(*mode, captureModeOfThread);
  return cudaSuccess;
}

} // namespace

extern "C" {

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  STREAMRACE_EMU_TRACED(cudaStreamBeginCapture, v10000,
                        beginCapture(stream, mode, DefaultStream::Legacy), stream, mode);
}

cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, cudaStreamCaptureMode mode) {
  STREAMRACE_EMU_TRACED(cudaStreamBeginCapture_ptsz, v10000,
                        beginCapture(stream, mode, DefaultStream::PerThread), stream, mode);
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  STREAMRACE_EMU_TRACED(cudaStreamEndCapture, v10000,
                        endCapture(stream, pGraph, DefaultStream::Legacy), stream, pGraph);
}

cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t* pGraph) {
  STREAMRACE_EMU_TRACED(cudaStreamEndCapture_ptsz, v10000,
                        endCapture(stream, pGraph, DefaultStream::PerThread), stream, pGraph);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* pCaptureStatus) {
  STREAMRACE_EMU_TRACED(cudaStreamIsCapturing, v10000,
                        isCapturing(stream, pCaptureStatus, DefaultStream::Legacy), stream,
                        pCaptureStatus);
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                       cudaStreamCaptureStatus* pCaptureStatus) {
  STREAMRACE_EMU_TRACED(cudaStreamIsCapturing_ptsz, v10000,
                        isCapturing(stream, pCaptureStatus, DefaultStream::PerThread), stream,
                        pCaptureStatus);
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* captureStatusOut,
                                     unsigned long long* idOut, cudaGraph_t* graphOut,
                                     const cudaGraphNode_t** dependenciesOut,
                                     const cudaGraphEdgeData** edgeDataOut,
                                     size_t* numDependenciesOut) {
  STREAMRACE_EMU_TRACED(cudaStreamGetCaptureInfo, v12030,
                        captureInfo(stream, captureStatusOut, idOut, graphOut, dependenciesOut,
                                    edgeDataOut, numDependenciesOut, DefaultStream::Legacy),
                        stream, captureStatusOut, idOut, graphOut, dependenciesOut, edgeDataOut,
                        numDependenciesOut);
}

cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                          cudaStreamCaptureStatus* captureStatusOut,
                                          unsigned long long* idOut, cudaGraph_t* graphOut,
                                          const cudaGraphNode_t** dependenciesOut,
                                          const cudaGraphEdgeData** edgeDataOut,
                                          size_t* numDependenciesOut) {
  STREAMRACE_EMU_TRACED(cudaStreamGetCaptureInfo_ptsz, v12030,
                        captureInfo(stream, captureStatusOut, idOut, graphOut, dependenciesOut,
                                    edgeDataOut, numDependenciesOut, DefaultStream::PerThread),
                        stream, captureStatusOut, idOut, graphOut, dependenciesOut, edgeDataOut,
                        numDependenciesOut);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  STREAMRACE_EMU_TRACED(cudaThreadExchangeStreamCaptureMode, v10010, exchangeCaptureMode(mode),
                        mode);
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags) {
  STREAMRACE_EMU_TRACED(cudaGraphInstantiate, v12000, instantiate(pGraphExec, graph), pGraphExec,
                        graph, flags);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags) {
  STREAMRACE_EMU_TRACED(cudaGraphInstantiateWithFlags, v11040, instantiate(pGraphExec, graph),
                        pGraphExec, graph, flags);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaGraphLaunch, v10000,
                        launchGraph(graphExec, stream, DefaultStream::Legacy), graphExec, stream);
}

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(cudaGraphLaunch_ptsz, v10000,
                        launchGraph(graphExec, stream, DefaultStream::PerThread), graphExec,
                        stream);
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo* resultInfo) {
  STREAMRACE_EMU_TRACED(cudaGraphExecUpdate, v10020, updateExec(hGraphExec, hGraph, resultInfo),
                        hGraphExec, hGraph, resultInfo);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  STREAMRACE_EMU_TRACED(
      cudaGraphDestroy, v10000,
      Runtime::instance().destroyGraph(graph) ? cudaSuccess : cudaErrorInvalidValue, graph);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  STREAMRACE_EMU_TRACED(cudaGraphExecDestroy, v10000,
                        Runtime::instance().destroyGraphExec(graphExec) ? cudaSuccess
                                                                        : cudaErrorInvalidValue,
                        graphExec);
}

} // extern "C"
