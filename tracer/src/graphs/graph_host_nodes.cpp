// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "graphs/graph_host_nodes.h"

#include "calling_thread.h"
#include "host_access/watched_memory.h"
#include "queue/captured_call.h"
#include "recorder.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <deque>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace streamrace::tracer {

// One host node of one executable, as the runtime calls it: the program's function and
// argument, and the runs launches handed it, in launch order.
class ExecHostNode {
public:
  ExecHostNode(cudaHostFn_t function, void* data, std::uint64_t node)
      : function_(function), data_(data), node_(node) {}

  // A launch's run, queued behind the earlier launches'; null once the node is not watched.
  std::shared_ptr<HostFunctionRun> launch() {
    std::lock_guard lock(mutex_);
    if (!watched_) return nullptr;
    return launched_.emplace_back(std::make_shared<HostFunctionRun>(true, true));
  }
  // A launch that failed takes its run back.
  void withdraw(const HostFunctionRun* run) {
    std::lock_guard lock(mutex_);
    std::erase_if(launched_, [run](const auto& queued) { return queued.get() == run; });
  }
  // The runtime calls the node: the earliest launch's run, if any is waiting (a launch the
  // tracer did not see, such as a driver-API one, has none).
  std::shared_ptr<HostFunctionRun> take() {
    std::lock_guard lock(mutex_);
    if (launched_.empty()) return nullptr;
    std::shared_ptr<HostFunctionRun> run = std::move(launched_.front());
    launched_.pop_front();
    return run;
  }
  void stop_watching() {
    std::lock_guard lock(mutex_);
    watched_ = false;
  }
  void call() const { function_(data_); }
  std::uint64_t node() const { return node_; }

private:
  cudaHostFn_t function_;
  void* data_;
  std::uint64_t node_;
  std::mutex mutex_;
  std::deque<std::shared_ptr<HostFunctionRun>> launched_;
  bool watched_ = true;
};

namespace {

thread_local std::vector<GraphHostRun> launched_graph_runs;
thread_local bool holding_captured_launch = false;
thread_local std::optional<CapturedCall> held_captured_launch;

void CUDART_CB run_exec_host_node(void* data) {
  auto& node = *static_cast<ExecHostNode*>(data);
  const std::shared_ptr<HostFunctionRun> run = node.take();
  const HostFunctionRunMark running(run.get());
  node.call();
}

// The runtime's own cudaGraphExecHostNodeSetParams, not the program's (defined below).
cudaError_t set_exec_host_node(cudaGraphExec_t exec, cudaGraphNode_t node,
                               const cudaHostNodeParams* params) {
  static constinit std::atomic<void*> next{nullptr};
  const auto set = reinterpret_cast<decltype(&::cudaGraphExecHostNodeSetParams)>(
      next_runtime_function(next, "cudaGraphExecHostNodeSetParams"));
  if (set == nullptr) return cudaErrorSharedObjectSymbolNotFound;
  const InsideLibraryCall untraced;
  return set(exec, node, params);
}

// The graph's host nodes with the program's functions.
std::vector<std::pair<cudaGraphNode_t, cudaHostNodeParams>> host_nodes_of(cudaGraph_t graph) {
  static constinit std::atomic<void*> next_nodes{nullptr};
  static constinit std::atomic<void*> next_type{nullptr};
  static constinit std::atomic<void*> next_params{nullptr};
  const auto nodes_of = reinterpret_cast<decltype(&::cudaGraphGetNodes)>(
      next_runtime_function(next_nodes, "cudaGraphGetNodes"));
  const auto type_of = reinterpret_cast<decltype(&::cudaGraphNodeGetType)>(
      next_runtime_function(next_type, "cudaGraphNodeGetType"));
  const auto params_of = reinterpret_cast<decltype(&::cudaGraphHostNodeGetParams)>(
      next_runtime_function(next_params, "cudaGraphHostNodeGetParams"));
  std::vector<std::pair<cudaGraphNode_t, cudaHostNodeParams>> found;
  if (nodes_of == nullptr || type_of == nullptr || params_of == nullptr) return found;
  const InsideLibraryCall untraced;
  std::size_t count = 0;
  if (nodes_of(graph, nullptr, &count) != cudaSuccess || count == 0) return found;
  std::vector<cudaGraphNode_t> nodes(count);
  if (nodes_of(graph, nodes.data(), &count) != cudaSuccess) return found;
  nodes.resize(std::min(count, nodes.size()));
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
    cudaHostNodeParams params{};
    if (type_of(node, &type) == cudaSuccess && type == cudaGraphNodeTypeHost &&
        params_of(node, &params) == cudaSuccess && params.fn != nullptr)
      found.emplace_back(node, params);
  }
  return found;
}

// The node the capture of `stream` made last: the one a launch into it just added.
std::uint64_t last_captured_node(void* stream_handle, bool per_thread) {
  static constinit std::atomic<void*> next{nullptr};
  const auto capture_info = reinterpret_cast<decltype(&::cudaStreamGetCaptureInfo)>(
      next_runtime_function(next, "cudaStreamGetCaptureInfo"));
  if (capture_info == nullptr) return 0;
  auto stream = static_cast<cudaStream_t>(stream_handle);
  if (stream == nullptr && per_thread) stream = cudaStreamPerThread;
  const InsideLibraryCall untraced;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaGraphNode_t* frontier = nullptr;
  std::size_t count = 0;
  if (capture_info(stream, &status, nullptr, nullptr, &frontier, nullptr, &count) != cudaSuccess ||
      status != cudaStreamCaptureStatusActive || count != 1 || frontier == nullptr)
    return 0;
  return reinterpret_cast<std::uint64_t>(frontier[0]);
}

// Every executable's watched host nodes. Never destroyed (runtime threads may still call a node
// while the process exits); a node outlives its executable for the same reason, since a launch
// in flight may still call it.
class ExecHostNodes {
public:
  static ExecHostNodes& instance() {
    static ExecHostNodes* const nodes = std::make_unique<ExecHostNodes>().release();
    return *nodes;
  }

  // After `exec` was instantiated from `graph`: each host node gets a trampoline of its own.
  void adopt(cudaGraphExec_t exec, cudaGraph_t graph) {
    std::vector<std::shared_ptr<ExecHostNode>> adopted;
    for (const auto& [node, params] : host_nodes_of(graph))
      if (auto watched = wrap(exec, node, params)) adopted.push_back(std::move(watched));
    std::lock_guard lock(mutex_);
    retire(exec);
    if (!adopted.empty()) execs_[exec] = std::move(adopted);
  }

  // The program sets a host node's function: still watched, through a trampoline of its own.
  // Returns the runtime's answer, or nothing when the node is not one the tracer watches.
  std::optional<cudaError_t> replace(cudaGraphExec_t exec, cudaGraphNode_t node,
                                     const cudaHostNodeParams& params) {
    {
      std::lock_guard lock(mutex_);
      if (find(exec, node) == nullptr) return std::nullopt;
    }
    cudaError_t result = cudaSuccess;
    std::shared_ptr<ExecHostNode> watched = wrap(exec, node, params, &result);
    if (!watched) return result;
    std::lock_guard lock(mutex_);
    if (std::shared_ptr<ExecHostNode>* slot = find(exec, node)) {
      retired_.push_back(std::move(*slot));
      *slot = std::move(watched);
    }
    return result;
  }

  std::vector<GraphHostRun> launch(cudaGraphExec_t exec) {
    std::vector<GraphHostRun> runs;
    std::lock_guard lock(mutex_);
    const auto found = execs_.find(exec);
    if (found == execs_.end()) return runs;
    for (const std::shared_ptr<ExecHostNode>& node : found->second)
      if (std::shared_ptr<HostFunctionRun> run = node->launch())
        runs.push_back(GraphHostRun{node->node(), std::move(run), node});
    return runs;
  }

  // The executable is gone, or no longer calls the trampolines (cudaGraphExecUpdate).
  void forget(cudaGraphExec_t exec) {
    std::lock_guard lock(mutex_);
    retire(exec);
  }

private:
  std::shared_ptr<ExecHostNode> wrap(cudaGraphExec_t exec, cudaGraphNode_t node,
                                     const cudaHostNodeParams& params,
                                     cudaError_t* result = nullptr) {
    auto watched = std::make_shared<ExecHostNode>(params.fn, params.userData,
                                                  reinterpret_cast<std::uint64_t>(node));
    const cudaHostNodeParams trampoline{run_exec_host_node, watched.get()};
    const cudaError_t set = set_exec_host_node(exec, node, &trampoline);
    if (result != nullptr) *result = set;
    return set == cudaSuccess ? watched : nullptr;
  }
  std::shared_ptr<ExecHostNode>* find(cudaGraphExec_t exec, cudaGraphNode_t node) {
    const auto found = execs_.find(exec);
    if (found == execs_.end()) return nullptr;
    for (std::shared_ptr<ExecHostNode>& watched : found->second)
      if (watched->node() == reinterpret_cast<std::uint64_t>(node)) return &watched;
    return nullptr;
  }
  void retire(cudaGraphExec_t exec) {
    const auto found = execs_.find(exec);
    if (found == execs_.end()) return;
    for (std::shared_ptr<ExecHostNode>& node : found->second)
      retired_.push_back(std::move(node));
    execs_.erase(found);
  }

  std::mutex mutex_;
  std::unordered_map<cudaGraphExec_t, std::vector<std::shared_ptr<ExecHostNode>>> execs_;
  std::vector<std::shared_ptr<ExecHostNode>> retired_;
};

bool watching_here() {
  return !InsideLibraryCall::active() && WatchedMemory::enabled() && Recorder::get() != nullptr;
}

cudaError_t adopt_instantiated(cudaError_t result, const cudaGraphExec_t* exec, cudaGraph_t graph) {
  if (result == cudaSuccess && exec != nullptr && watching_here())
    ExecHostNodes::instance().adopt(*exec, graph);
  return result;
}

// A graph launch hands each watched host node of the executable a run. The calling thread does
// not know what the graph's other nodes use, so every watched page is closed first, before the
// runtime may start the graph.
template <typename Launch>
cudaError_t launch_watched_graph(cudaGraphExec_t exec, cudaStream_t stream, bool per_thread,
                                 Launch&& launch) {
  if (!watching_here() || may_be_capturing(stream, per_thread)) return launch();
  WatchedMemory::instance().protect_all();
  std::vector<GraphHostRun> runs = ExecHostNodes::instance().launch(exec);
  launched_graph_runs = runs;
  const cudaError_t result = launch();
  launched_graph_runs.clear();
  if (result != cudaSuccess)
    for (const GraphHostRun& run : runs)
      run.owner->withdraw(run.run.get());
  return result;
}

} // namespace

std::vector<GraphHostRun> take_launched_graph_runs() {
  return std::exchange(launched_graph_runs, {});
}

void stop_watching(ExecHostNode& node) {
  node.stop_watching();
}

CapturedHostLaunch::CapturedHostLaunch(void* stream, bool per_thread)
    : stream_(stream), per_thread_(per_thread) {
  holding_captured_launch = true;
}

CapturedHostLaunch::~CapturedHostLaunch() {
  holding_captured_launch = false;
  if (!held_captured_launch) return;
  CapturedCall call = std::move(*held_captured_launch);
  held_captured_launch.reset();
  if (auto* function = std::get_if<HostFunction>(&call.payload))
    function->node = last_captured_node(stream_, per_thread_);
  if (Recorder* tracer = Recorder::running()) tracer->queue(std::move(call));
}

bool CapturedHostLaunch::hold(CapturedCall& call) {
  if (!holding_captured_launch || !std::holds_alternative<HostFunction>(call.payload)) return false;
  held_captured_launch = std::move(call);
  return true;
}

} // namespace streamrace::tracer

using streamrace::tracer::adopt_instantiated;
using streamrace::tracer::ExecHostNodes;
using streamrace::tracer::launch_watched_graph;
using streamrace::tracer::WatchedMemory;
using streamrace::tracer::watching_here;

extern "C" {

__attribute__((visibility("default"))) cudaError_t
cudaGraphInstantiate(cudaGraphExec_t* p_graph_exec, cudaGraph_t graph, unsigned long long flags) {
  STREAMRACE_NEXT_RUNTIME(cudaGraphInstantiate, "cudaGraphInstantiate");
  return adopt_instantiated(real(p_graph_exec, graph, flags), p_graph_exec, graph);
}

__attribute__((visibility("default"))) cudaError_t cudaGraphInstantiateWithFlags(
    cudaGraphExec_t* p_graph_exec, cudaGraph_t graph, unsigned long long flags) {
  STREAMRACE_NEXT_RUNTIME(cudaGraphInstantiateWithFlags, "cudaGraphInstantiateWithFlags");
  return adopt_instantiated(real(p_graph_exec, graph, flags), p_graph_exec, graph);
}

__attribute__((visibility("default"))) cudaError_t cudaGraphInstantiateWithParams(
    cudaGraphExec_t* p_graph_exec, cudaGraph_t graph, cudaGraphInstantiateParams* params) {
  STREAMRACE_NEXT_RUNTIME(cudaGraphInstantiateWithParams, "cudaGraphInstantiateWithParams");
  return adopt_instantiated(real(p_graph_exec, graph, params), p_graph_exec, graph);
}

__attribute__((visibility("default"))) cudaError_t cudaGraphInstantiateWithParams_ptsz(
    cudaGraphExec_t* p_graph_exec, cudaGraph_t graph, cudaGraphInstantiateParams* params) {
  STREAMRACE_NEXT_RUNTIME(cudaGraphInstantiateWithParams, "cudaGraphInstantiateWithParams_ptsz");
  return adopt_instantiated(real(p_graph_exec, graph, params), p_graph_exec, graph);
}

__attribute__((visibility("default"))) cudaError_t cudaGraphLaunch(cudaGraphExec_t graph_exec,
                                                                   cudaStream_t stream) {
  STREAMRACE_NEXT_RUNTIME(cudaGraphLaunch, "cudaGraphLaunch");
  return launch_watched_graph(graph_exec, stream, false, [&] { return real(graph_exec, stream); });
}

__attribute__((visibility("default"))) cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graph_exec,
                                                                        cudaStream_t stream) {
  STREAMRACE_NEXT_RUNTIME(cudaGraphLaunch, "cudaGraphLaunch_ptsz");
  return launch_watched_graph(graph_exec, stream, true, [&] { return real(graph_exec, stream); });
}

__attribute__((visibility("default"))) cudaError_t cudaGraphExecHostNodeSetParams(
    cudaGraphExec_t h_graph_exec, cudaGraphNode_t node, const cudaHostNodeParams* p_node_params) {
  STREAMRACE_NEXT_RUNTIME(cudaGraphExecHostNodeSetParams, "cudaGraphExecHostNodeSetParams");
  if (p_node_params != nullptr && p_node_params->fn != nullptr && watching_here())
    if (auto replaced = ExecHostNodes::instance().replace(h_graph_exec, node, *p_node_params))
      return *replaced;
  return real(h_graph_exec, node, p_node_params);
}

// The generic setter, for a host node: as cudaGraphExecHostNodeSetParams.
__attribute__((visibility("default"))) cudaError_t cudaGraphExecNodeSetParams(
    cudaGraphExec_t graph_exec, cudaGraphNode_t node, cudaGraphNodeParams* node_params) {
  STREAMRACE_NEXT_RUNTIME(cudaGraphExecNodeSetParams, "cudaGraphExecNodeSetParams");
  if (node_params != nullptr && node_params->type == cudaGraphNodeTypeHost &&
      node_params->host.fn != nullptr && watching_here())
    if (auto replaced = ExecHostNodes::instance().replace(
            graph_exec, node, cudaHostNodeParams{node_params->host.fn, node_params->host.userData}))
      return *replaced;
  return real(graph_exec, node, node_params);
}

__attribute__((visibility("default"))) cudaError_t cudaGraphExecUpdate(
    cudaGraphExec_t h_graph_exec, cudaGraph_t h_graph, cudaGraphExecUpdateResultInfo* result_info) {
  STREAMRACE_NEXT_RUNTIME(cudaGraphExecUpdate, "cudaGraphExecUpdate");
  const cudaError_t result = real(h_graph_exec, h_graph, result_info);
  // The executable now calls the functions of the updated graph's host nodes, unwatched.
  if (result == cudaSuccess && WatchedMemory::enabled())
    ExecHostNodes::instance().forget(h_graph_exec);
  return result;
}

__attribute__((visibility("default"))) cudaError_t
cudaGraphExecDestroy(cudaGraphExec_t graph_exec) {
  STREAMRACE_NEXT_RUNTIME(cudaGraphExecDestroy, "cudaGraphExecDestroy");
  if (WatchedMemory::enabled()) ExecHostNodes::instance().forget(graph_exec);
  return real(graph_exec);
}

} // extern "C"
