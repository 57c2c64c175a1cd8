// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CUDA calls through the CUPTI callback API (runtime domain, and the driver domain's kernel
// launches and modeled calls a program makes itself), decoded at API exit so results and output
// parameters are known.
#include "cuda_entry/cupti_attach.h"

#include "calling_thread.h"
#include "cuda_entry/context_devices.h"
#include "cuda_entry/cuda_arguments.h"
#include "cuda_entry/driver_launches.h"
#include "cuda_entry/unmodelled_work.h"
#include "decode/api_decoder.h"
#include "kernels/kernel_launches.h"
#include "recorder.h"

#include <cupti.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>

namespace streamrace::tracer {

namespace {

constexpr int kCudaSuccess = 0;
constexpr int kCudaErrorNotReady = 600;

// Runtime calls in progress on this thread: a driver launch inside one is that call's own.
thread_local int runtime_call_depth = 0;
// When this thread's host wait in progress began (steady clock, ns): its cost, at its return.
thread_local std::uint64_t host_wait_entered_ns = 0;

bool is_host_wait(api_model::ApiRole role) {
  switch (role) {
  case api_model::ApiRole::StreamSync:
  case api_model::ApiRole::StreamQuery:
  case api_model::ApiRole::EventSync:
  case api_model::ApiRole::EventQuery:
  case api_model::ApiRole::DeviceSync:
    return true;
  default:
    return false;
  }
}

std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// The driver calls of the model (cuda_driver_api.def), enabled one by one: every other driver
// call is some runtime call's.
constexpr CUpti_CallbackId kModeledDriverCallbacks[] = {
#define STREAMRACE_ARG(parameter, meaning)
#define STREAMRACE_CUDA_DRIVER_API(name, ...) CUPTI_DRIVER_TRACE_CBID_##name,
#include "streamrace/api_model/cuda_driver_api.def"
#undef STREAMRACE_CUDA_DRIVER_API
#undef STREAMRACE_ARG
};

// Callback ids seen so far, per domain (runtime and driver ids overlap), and what the model says
// about them; `kUnmodeled` marks calls the model does not describe, so each id is looked up by
// name once.
const CudaCallShape kUnmodeled{};
using ShapeCache = std::array<std::atomic<const CudaCallShape*>, 2048>;
ShapeCache runtime_shapes{};
ShapeCache driver_shapes{};

// A runtime call looked up by name and not found may be work the model lacks: said once.
const CudaCallShape* find_runtime_call(bool runtime, const char* name) {
  if (name == nullptr) return nullptr;
  const CudaCallShape* shape = find_cuda_call(name);
  if (shape == nullptr && runtime) warn_of_unmodelled_work(name);
  return shape;
}

const CudaCallShape* shape_for(ShapeCache& shapes, CUpti_CallbackId id, const char* name) {
  const bool runtime = &shapes == &runtime_shapes;
  if (id >= shapes.size()) return find_runtime_call(runtime, name);
  const CudaCallShape* shape = shapes[id].load(std::memory_order_acquire);
  if (shape == nullptr) {
    shape = find_runtime_call(runtime, name);
    if (shape == nullptr) shape = &kUnmodeled;
    shapes[id].store(shape, std::memory_order_release);
  }
  return shape == &kUnmodeled ? nullptr : shape;
}

CallOutcome outcome_of(const CUpti_CallbackData& call) {
  if (call.functionReturnValue == nullptr) return CallOutcome::Failed;
  const int result = *static_cast<const int*>(call.functionReturnValue);
  if (result == kCudaSuccess) return CallOutcome::Succeeded;
  return result == kCudaErrorNotReady ? CallOutcome::NotReady : CallOutcome::Failed;
}

// `count` node handles from the program's array (alive only during the call).
std::vector<std::uint64_t> node_handles(std::uint64_t array, std::uint64_t count) {
  std::vector<std::uint64_t> handles(array == 0 ? 0 : count);
  if (!handles.empty())
    std::memcpy(handles.data(), reinterpret_cast<const void*>(array), count * sizeof(void*));
  return handles;
}

void record_graph_build(Recorder& tracer, const api_model::ApiFunction& function,
                        const CallArguments& arguments, CallOutcome outcome) {
  using api_model::ApiRole;
  using api_model::ArgMeaning;
  if (outcome != CallOutcome::Succeeded) return;
  GraphBuildCall build;
  const std::uint64_t count = arguments.get_or(function, ArgMeaning::NodeDependencyCount, 0);
  build.dependencies =
      node_handles(arguments.get_or(function, ArgMeaning::NodeDependencies, 0), count);
  std::vector<KernelPointer> kernel_pointers;
  switch (function.role) {
  case ApiRole::GraphCreate:
    build.graph = arguments.get_or(function, ArgMeaning::GraphOut, 0);
    break;
  case ApiRole::GraphClone:
    build.kind = GraphBuildCall::Kind::Clone;
    build.graph = arguments.get_or(function, ArgMeaning::GraphOut, 0);
    build.source = arguments.get_or(function, ArgMeaning::Graph, 0);
    break;
  case ApiRole::GraphFindInClone:
    build.kind = GraphBuildCall::Kind::FindInClone;
    build.graph = arguments.get_or(function, ArgMeaning::Graph, 0);
    build.node = arguments.get_or(function, ArgMeaning::GraphNodeOut, 0);
    build.original = arguments.get_or(function, ArgMeaning::GraphNode, 0);
    break;
  case ApiRole::GraphDestroy:
    build.kind = GraphBuildCall::Kind::Destroy;
    build.graph = arguments.get_or(function, ArgMeaning::Graph, 0);
    break;
  case ApiRole::GraphAddDependencies:
  case ApiRole::GraphRemoveDependencies:
    build.kind = function.role == ApiRole::GraphAddDependencies ? GraphBuildCall::Kind::AddEdges
                                                                : GraphBuildCall::Kind::RemoveEdges;
    build.graph = arguments.get_or(function, ArgMeaning::Graph, 0);
    build.dependents =
        node_handles(arguments.get_or(function, ArgMeaning::NodeDependents, 0), count);
    break;
  case ApiRole::GraphDestroyNode:
    build.kind = GraphBuildCall::Kind::DestroyNode;
    build.node = arguments.get_or(function, ArgMeaning::GraphNode, 0);
    break;
  case ApiRole::GraphExecUpdate:
    build.kind = GraphBuildCall::Kind::ExecUpdate;
    build.graph = arguments.get_or(function, ArgMeaning::Graph, 0);
    build.exec = arguments.get_or(function, ArgMeaning::GraphExec, 0);
    break;
  default: {
    const bool setter = function.role == ApiRole::GraphSetNode;
    build.kind = setter ? GraphBuildCall::Kind::SetNode : GraphBuildCall::Kind::AddNode;
    build.graph = arguments.get_or(function, ArgMeaning::Graph, 0);
    build.exec = arguments.get_or(function, ArgMeaning::GraphExec, 0);
    build.node =
        arguments.get_or(function, setter ? ArgMeaning::GraphNode : ArgMeaning::GraphNodeOut, 0);
    build.source = arguments.get_or(function, ArgMeaning::ChildGraph, 0);
    // A generic node is what the typed call of its type adds; one of a type the model does not
    // describe orders its dependents and does nothing else.
    std::optional<TypedNodeCall> node = TypedNodeCall{&function, arguments};
    if (function.has(ArgMeaning::GraphNodeParams)) node = typed_node_call(function, arguments);
    if (!node) break;
    DecodeInputs inputs;
    if (node->function->nodeRole == ApiRole::KernelLaunch) {
      const std::string name = KernelLaunchReader::instance().read_graph_node(
          reinterpret_cast<const void*>(
              node->arguments.get_or(*node->function, ArgMeaning::KernelFunction, 0)),
          reinterpret_cast<void* const*>(
              node->arguments.get_or(*node->function, ArgMeaning::KernelArgs, 0)),
          launch_threads_x(*node->function, node->arguments), kernel_pointers);
      if (!name.empty()) inputs.function_name = tracer.intern_name(name);
    }
    build.operation = decode_graph_node(*node->function, node->arguments, inputs);
  }
  }
  tracer.record_graph_build(function.name, std::move(build), std::move(kernel_pointers));
}

// Whether the call gives memory back. Such a call is recorded as it begins, taken to succeed:
// once the memory is back, another thread may be handed the same addresses and record their
// allocation before this call returns, and the engine must see the free first.
bool releases_memory(const CudaCallShape* shape) {
  if (shape == nullptr) return false;
  switch (shape->function->role) {
  case api_model::ApiRole::Free:
  case api_model::ApiRole::FreeHost:
  case api_model::ApiRole::FreeAsync:
  case api_model::ApiRole::HostUnregister:
    return true;
  default:
    return false;
  }
}

// A modeled call as it returns, or, for one that releases memory, as it begins.
void on_api_call(Recorder& tracer, const CudaCallShape* shape, const CUpti_CallbackData& call) {
  if (shape == nullptr) return;
  const api_model::ApiFunction& function = *shape->function;
  DecodeInputs inputs;
  inputs.outcome = call.callbackSite == CUPTI_API_ENTER ? CallOutcome::Succeeded : outcome_of(call);
  if (is_host_wait(function.role) && host_wait_entered_ns != 0) {
    inputs.waited_ns = steady_ns() - host_wait_entered_ns;
    host_wait_entered_ns = 0;
  }
  const CallArguments arguments = read_cuda_arguments(*shape, call.functionParams);
  switch (function.role) {
  case api_model::ApiRole::GraphCreate:
  case api_model::ApiRole::GraphAddNode:
  case api_model::ApiRole::GraphAddDependencies:
  case api_model::ApiRole::GraphRemoveDependencies:
  case api_model::ApiRole::GraphDestroyNode:
  case api_model::ApiRole::GraphClone:
  case api_model::ApiRole::GraphFindInClone:
  case api_model::ApiRole::GraphDestroy:
  case api_model::ApiRole::GraphSetNode:
  case api_model::ApiRole::GraphExecUpdate:
    record_graph_build(tracer, function, arguments, inputs.outcome);
    return;
  case api_model::ApiRole::SelectContext:
    if (inputs.outcome == CallOutcome::Succeeded)
      if (const std::optional<DeviceId> device = current_context_device())
        tracer.record(function.name, SetDevice{*device}, {});
    return;
  default:
    break;
  }
  std::optional<Payload> payload = std::nullopt;
  std::vector<KernelPointer> kernel_pointers;
  if (function.role == api_model::ApiRole::KernelLaunch) {
    if (call.symbolName != nullptr) inputs.function_name = tracer.intern_name(call.symbolName);
    payload = decode_call(function, arguments, inputs);
    // The argument array lives only as long as the call: its pointers are read now.
    if (payload)
      KernelLaunchReader::instance().read(reinterpret_cast<const void*>(arguments.get_or(
                                              function, api_model::ArgMeaning::KernelFunction, 0)),
                                          call.symbolName,
                                          reinterpret_cast<void* const*>(arguments.get_or(
                                              function, api_model::ArgMeaning::KernelArgs, 0)),
                                          launch_threads_x(function, arguments), kernel_pointers);
  } else {
    payload = decode_call(function, arguments, inputs);
  }
  if (payload) tracer.record(function.name, std::move(*payload), std::move(kernel_pointers));
}

void CUPTIAPI on_callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                          const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  const bool entering = call->callbackSite == CUPTI_API_ENTER;
  if (runtime) {
    // Counted whatever else happens, so enter and exit stay paired. A call in progress when the
    // tracer subscribed (the driver loads it during the first runtime call) exits unentered.
    if (entering)
      ++runtime_call_depth;
    else if (runtime_call_depth > 0)
      --runtime_call_depth;
  } else if (domain != CUPTI_CB_DOMAIN_DRIVER_API || runtime_call_depth > 0) {
    return;
  }
  if (InsideLibraryCall::active()) return;
  Recorder* tracer = (*static_cast<const RecorderLookup*>(userdata))();
  if (tracer == nullptr) return;
  try {
    if (!runtime && is_driver_launch(id)) {
      if (!entering) record_driver_launch(*tracer, id, *call);
      return;
    }
    const CudaCallShape* shape =
        shape_for(runtime ? runtime_shapes : driver_shapes, id, call->functionName);
    if (entering && shape != nullptr && is_host_wait(shape->function->role))
      host_wait_entered_ns = steady_ns();
    if (entering == releases_memory(shape)) on_api_call(*tracer, shape, *call);
  } catch (const std::exception& error) {
    tracer->disable(error.what());
  } catch (...) {
    tracer->disable("unknown exception in a CUPTI callback");
  }
}

} // namespace

std::string subscribe_callbacks(CuptiApi& cupti, const RecorderLookup& tracer) {
  CUpti_SubscriberHandle subscriber = nullptr;
  std::string holder;
  CUptiResult result =
      cupti.subscribe(subscriber, on_callback, const_cast<RecorderLookup*>(&tracer), holder);
  if (result == CUPTI_SUCCESS)
    result = cupti.enable_domain(subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  // Of the driver domain only the launches and the modeled calls, which the callback reads
  // when no runtime call is in progress.
  for (CUpti_CallbackId launch : kDriverLaunchCallbacks)
    if (result == CUPTI_SUCCESS)
      result = cupti.enable_callback(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, launch);
  for (CUpti_CallbackId modeled : kModeledDriverCallbacks)
    if (result == CUPTI_SUCCESS)
      result = cupti.enable_callback(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, modeled);
  if (result == CUPTI_SUCCESS) return {};
  if (!holder.empty())
    return "cannot subscribe to CUPTI callbacks: " + cupti.describe(result) + " (" + holder +
           " holds them; a process has one CUPTI subscriber)";
  return "cannot subscribe to CUPTI callbacks: " + cupti.describe(result) +
         " (another CUPTI tool, such as a profiler, may be attached)";
}

void count_runtime_call_in_progress() {
  runtime_call_depth = std::max(runtime_call_depth, 1);
}

bool inside_cuda_runtime_call() {
  return runtime_call_depth > 0;
}

} // namespace streamrace::tracer
