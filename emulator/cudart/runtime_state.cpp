// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "runtime_state.h"

#include <algorithm>

#include "emulation_knobs.h"

namespace streamrace::emu {

namespace {
thread_local int currentDeviceOfThread = 0;
thread_local std::vector<Stream*> perThreadStreamsOfThread;
} // namespace

Device::Device(int ordinal, std::size_t memoryBytes)
    : ordinal(ordinal), arena(memoryBytes),
      dispatch(EmulationKnobs::fromEnvironment().dispatchInSubmissionOrder),
      legacy(ordinal, StreamRole::Legacy, 0, 0, 0, "legacy", dispatch) {}

Runtime& Runtime::instance() {
  // Never destroyed: stream workers may still be running when the process exits, exactly as
  // work may still be queued on a real device, and must not find the runtime gone.
  static Runtime* const runtime = std::make_unique<Runtime>().release();
  return *runtime;
}

Runtime::Runtime() {
  const EmulationKnobs& knobs = EmulationKnobs::fromEnvironment();
  for (int ordinal = 0; ordinal < knobs.deviceCount; ++ordinal) {
    devices_.push_back(std::make_unique<Device>(ordinal, knobs.deviceMemoryBytes));
  }
}

int Runtime::currentDevice() const {
  return currentDeviceOfThread;
}

void Runtime::setCurrentDevice(int ordinal) {
  currentDeviceOfThread = ordinal;
}

Stream& Runtime::perThreadStream(int device) {
  if (perThreadStreamsOfThread.empty()) {
    perThreadStreamsOfThread.assign(devices_.size(), nullptr);
  }
  Stream*& slot = perThreadStreamsOfThread[static_cast<std::size_t>(device)];
  if (slot == nullptr) {
    auto stream = std::make_unique<Stream>(device, StreamRole::PerThread, 0, 0, nextStreamId_++,
                                           "per-thread", this->device(device).dispatch);
    slot = stream.get();
    std::unique_lock lock(handlesMutex_);
    perThreadStreams_.push_back(std::move(stream));
  }
  return *slot;
}

Stream* Runtime::resolveStream(cudaStream_t handle, DefaultStream meaningOfZero) {
  if (handle == cudaStreamLegacy || (handle == nullptr && meaningOfZero == DefaultStream::Legacy)) {
    return &device(currentDevice()).legacy;
  }
  if (handle == cudaStreamPerThread || handle == nullptr) {
    return &perThreadStream(currentDevice());
  }
  std::shared_lock lock(handlesMutex_);
  auto it = streams_.find(reinterpret_cast<Stream*>(handle));
  return it == streams_.end() ? nullptr : it->second.get();
}

Stream& Runtime::createStream(int device, unsigned flags, int priority) {
  auto stream = std::make_unique<Stream>(device, StreamRole::Created, flags, priority,
                                         nextStreamId_++, std::to_string(nextCreatedStreamLabel_++),
                                         this->device(device).dispatch);
  Stream& created = *stream;
  std::unique_lock lock(handlesMutex_);
  streams_.emplace(&created, std::move(stream));
  return created;
}

bool Runtime::destroyStream(cudaStream_t handle) {
  std::unique_lock lock(handlesMutex_);
  auto it = streams_.find(reinterpret_cast<Stream*>(handle));
  if (it == streams_.end()) {
    return false;
  }
  it->second->worker.retire();
  retiredStreams_.push_back(std::move(it->second));
  streams_.erase(it);
  return true;
}

Event* Runtime::resolveEvent(cudaEvent_t handle) {
  std::shared_lock lock(handlesMutex_);
  auto it = events_.find(reinterpret_cast<Event*>(handle));
  return it == events_.end() ? nullptr : it->second.get();
}

cudaEvent_t Runtime::createEvent(unsigned flags) {
  auto event = std::make_unique<Event>();
  event->flags = flags;
  event->device = currentDevice();
  Event* created = event.get();
  std::unique_lock lock(handlesMutex_);
  events_.emplace(created, std::move(event));
  return reinterpret_cast<cudaEvent_t>(created);
}

bool Runtime::destroyEvent(cudaEvent_t handle) {
  // Work already waiting on the event holds its snapshot by shared pointer, so destroying the
  // event right after recording it is safe, as the real runtime promises.
  std::lock_guard submitLock(submitMutex_);
  std::unique_lock lock(handlesMutex_);
  return events_.erase(reinterpret_cast<Event*>(handle)) == 1;
}

CompletionPtr Runtime::submitLocked(Stream& stream, Work work,
                                    std::vector<CompletionPtr> dependencies) {
  if (stream.capture) {
    auto node = std::make_unique<GraphNode>(GraphNode{std::move(work), stream.captureFrontier});
    stream.captureFrontier = {node.get()};
    stream.capture->graph->nodes.push_back(std::move(node));
    return nullptr;
  }
  Device& owner = device(stream.device);
  if (stream.role == StreamRole::Legacy) {
    std::shared_lock lock(handlesMutex_);
    for (auto& [pointer, created] : streams_) {
      if (created->device == stream.device && created->isBlocking()) {
        dependencies.push_back(created->worker.lastCompletion());
      }
    }
    for (auto& retired : retiredStreams_) {
      if (retired->device == stream.device && retired->isBlocking() &&
          !retired->worker.lastCompletion()->isDone()) {
        dependencies.push_back(retired->worker.lastCompletion());
      }
    }
    for (auto& perThread : perThreadStreams_) {
      if (perThread->device == stream.device) {
        dependencies.push_back(perThread->worker.lastCompletion());
      }
    }
  } else if (stream.isBlocking()) {
    dependencies.push_back(owner.legacy.worker.lastCompletion());
  }
  return stream.worker.enqueue(std::move(work), std::move(dependencies));
}

CompletionPtr Runtime::submit(Stream& stream, Work work, std::vector<CompletionPtr> dependencies) {
  std::lock_guard lock(submitMutex_);
  return submitLocked(stream, std::move(work), std::move(dependencies));
}

void Runtime::recordEvent(Event& event, Stream& stream) {
  std::lock_guard lock(submitMutex_);
  if (stream.capture) {
    event.captureSession = stream.capture;
    event.captureNodes = stream.captureFrontier;
    return;
  }
  event.captureSession.reset();
  event.captureNodes.clear();
  event.snapshot = submitLocked(stream, Work{OperationKind::EventRecord, {}}, {});
}

void Runtime::waitEvent(Stream& stream, Event& event) {
  std::lock_guard lock(submitMutex_);
  if (event.captureSession && !event.captureSession->ended) {
    // Waiting on an event recorded inside a capture pulls the stream into that capture.
    if (stream.capture != event.captureSession) {
      stream.capture = event.captureSession;
      stream.captureFrontier = event.captureNodes;
    } else {
      for (const GraphNode* node : event.captureNodes) {
        if (std::find(stream.captureFrontier.begin(), stream.captureFrontier.end(), node) ==
            stream.captureFrontier.end()) {
          stream.captureFrontier.push_back(node);
        }
      }
    }
    return;
  }
  if (stream.capture || !event.snapshot) {
    // A capture cannot depend on work outside it, and a never-recorded event orders nothing.
    return;
  }
  submitLocked(stream, Work{OperationKind::EventWait, {}}, {event.snapshot});
}

CompletionPtr Runtime::eventSnapshot(Event& event) {
  std::lock_guard lock(submitMutex_);
  return event.snapshot;
}

CompletionPtr Runtime::drainPoint(Stream& stream) {
  // The legacy stream's implicit synchronization was settled when its work was enqueued, so
  // waiting for its last operation is waiting for everything it is ordered after; blocking
  // streams' later work is not included (docs/semantics.md rules 5 and 6).
  std::lock_guard lock(submitMutex_);
  return stream.worker.lastCompletion();
}

void Runtime::synchronizeDevice(int ordinal) {
  std::vector<CompletionPtr> pending;
  {
    std::lock_guard submitLock(submitMutex_);
    std::shared_lock lock(handlesMutex_);
    pending.push_back(device(ordinal).legacy.worker.lastCompletion());
    for (auto& [pointer, created] : streams_) {
      if (created->device == ordinal) {
        pending.push_back(created->worker.lastCompletion());
      }
    }
    for (auto& retired : retiredStreams_) {
      if (retired->device == ordinal) {
        pending.push_back(retired->worker.lastCompletion());
      }
    }
    for (auto& perThread : perThreadStreams_) {
      if (perThread->device == ordinal) {
        pending.push_back(perThread->worker.lastCompletion());
      }
    }
  }
  for (const CompletionPtr& completion : pending) {
    completion->wait();
  }
}

bool Runtime::isCapturing(Stream& stream) {
  std::lock_guard lock(submitMutex_);
  return stream.capture != nullptr;
}

cudaError_t Runtime::beginCapture(Stream& stream, cudaStreamCaptureMode mode) {
  if (stream.role == StreamRole::Legacy) {
    return cudaErrorStreamCaptureUnsupported;
  }
  std::lock_guard lock(submitMutex_);
  if (stream.capture) {
    return cudaErrorIllegalState;
  }
  stream.capture = std::make_shared<CaptureSession>();
  stream.capture->id = nextCaptureId_++;
  stream.capture->mode = mode;
  stream.capture->origin = &stream;
  stream.captureFrontier.clear();
  return cudaSuccess;
}

cudaError_t Runtime::endCapture(Stream& stream, cudaGraph_t* graph) {
  std::lock_guard lock(submitMutex_);
  if (!stream.capture) {
    return cudaErrorIllegalState;
  }
  std::shared_ptr<CaptureSession> session = stream.capture;
  if (session->origin != &stream) {
    return cudaErrorStreamCaptureUnmatched;
  }
  session->ended = true;
  // Every stream that joined through an event leaves the capture with its origin; a fork that
  // was never joined back makes the capture fail, as on the real runtime.
  bool allJoined = true;
  auto leave = [&](Stream& member) {
    if (member.capture != session || &member == &stream) {
      return;
    }
    allJoined = allJoined && joinedInto(member.captureFrontier, stream.captureFrontier);
    member.capture.reset();
    member.captureFrontier.clear();
  };
  {
    std::shared_lock handlesLock(handlesMutex_);
    for (auto& [pointer, created] : streams_) {
      leave(*created);
    }
    for (auto& perThread : perThreadStreams_) {
      leave(*perThread);
    }
  }
  stream.capture.reset();
  stream.captureFrontier.clear();
  if (!allJoined) {
    *graph = nullptr;
    return cudaErrorStreamCaptureUnjoined;
  }
  Graph* captured = session->graph.get();
  std::unique_lock handlesLock(handlesMutex_);
  graphs_.emplace(captured, std::move(session->graph));
  *graph = reinterpret_cast<cudaGraph_t>(captured);
  return cudaSuccess;
}

std::optional<Runtime::CaptureInfo> Runtime::captureInfo(Stream& stream) {
  std::lock_guard lock(submitMutex_);
  if (!stream.capture) {
    return std::nullopt;
  }
  return CaptureInfo{stream.capture->id, stream.capture->graph.get(), &stream.captureFrontier};
}

cudaError_t Runtime::updateCaptureDependencies(Stream& stream,
                                               const std::vector<const GraphNode*>& nodes,
                                               bool add) {
  std::lock_guard lock(submitMutex_);
  if (!stream.capture) {
    return cudaErrorIllegalState;
  }
  const auto& captured = stream.capture->graph->nodes;
  for (const GraphNode* node : nodes) {
    if (std::none_of(captured.begin(), captured.end(),
                     [node](const auto& owned) { return owned.get() == node; })) {
      return cudaErrorInvalidValue;
    }
  }
  if (!add) {
    stream.captureFrontier.clear();
  }
  for (const GraphNode* node : nodes) {
    if (std::find(stream.captureFrontier.begin(), stream.captureFrontier.end(), node) ==
        stream.captureFrontier.end()) {
      stream.captureFrontier.push_back(node);
    }
  }
  return cudaSuccess;
}

bool Runtime::changeGraph(cudaGraph_t handle, const std::function<void(Graph&)>& change) {
  std::lock_guard submitLock(submitMutex_);
  std::shared_lock lock(handlesMutex_);
  Graph* graph = reinterpret_cast<Graph*>(handle);
  auto capturing = [graph](const Stream& stream) {
    return stream.capture && stream.capture->graph.get() == graph;
  };
  const bool known = graphs_.contains(graph) ||
                     std::any_of(streams_.begin(), streams_.end(),
                                 [&](const auto& entry) { return capturing(*entry.second); }) ||
                     std::any_of(perThreadStreams_.begin(), perThreadStreams_.end(),
                                 [&](const auto& stream) { return capturing(*stream); });
  if (known) {
    change(*graph);
  }
  return known;
}

bool Runtime::changeGraphNode(const GraphNode* node,
                              const std::function<bool(GraphNode&)>& change) {
  std::lock_guard submitLock(submitMutex_);
  std::shared_lock lock(handlesMutex_);
  for (const auto& [handle, graph] : graphs_) {
    // A graph gaining a node is out of the table meanwhile (addGraphNode).
    if (!graph) {
      continue;
    }
    for (const auto& owned : graph->nodes) {
      if (owned.get() == node) {
        return change(*owned);
      }
    }
  }
  return false;
}

Graph* Runtime::resolveGraph(cudaGraph_t graph) {
  std::shared_lock lock(handlesMutex_);
  auto it = graphs_.find(reinterpret_cast<Graph*>(graph));
  return it == graphs_.end() ? nullptr : it->second.get();
}

bool Runtime::knownGraph(cudaGraph_t graph) {
  return resolveGraph(graph) != nullptr;
}

bool Runtime::destroyGraphNode(const GraphNode* node) {
  std::lock_guard submitLock(submitMutex_);
  std::unique_lock lock(handlesMutex_);
  for (const auto& [handle, graph] : graphs_) {
    if (!graph) {
      continue;
    }
    const auto erased =
        std::erase_if(graph->nodes, [node](const std::unique_ptr<GraphNode>& owned) {
          return owned.get() == node;
        });
    if (erased == 0) {
      continue;
    }
    for (const auto& owned : graph->nodes) {
      std::erase(owned->dependencies, node);
    }
    return true;
  }
  return false;
}

bool Runtime::destroyGraph(cudaGraph_t graph) {
  std::unique_lock lock(handlesMutex_);
  return graphs_.erase(reinterpret_cast<Graph*>(graph)) == 1;
}

cudaGraphExec_t Runtime::instantiate(const Graph& graph) {
  auto exec = std::make_shared<const GraphExec>(graph);
  const GraphExec* key = exec.get();
  std::unique_lock lock(handlesMutex_);
  graphExecs_.emplace(key, ExecutableSlot{exec, exec});
  return reinterpret_cast<cudaGraphExec_t>(const_cast<GraphExec*>(key));
}

std::shared_ptr<const GraphExec> Runtime::resolveGraphExec(cudaGraphExec_t exec) {
  std::shared_lock lock(handlesMutex_);
  auto it = graphExecs_.find(reinterpret_cast<const GraphExec*>(exec));
  return it == graphExecs_.end() ? nullptr : it->second.current;
}

bool Runtime::changeGraphExec(cudaGraphExec_t exec, const std::function<bool(GraphExec&)>& change) {
  std::unique_lock lock(handlesMutex_);
  auto it = graphExecs_.find(reinterpret_cast<const GraphExec*>(exec));
  if (it == graphExecs_.end()) {
    return false;
  }
  auto changed = std::make_shared<GraphExec>(*it->second.current);
  if (!change(*changed)) {
    return false;
  }
  it->second.current = std::move(changed);
  return true;
}

bool Runtime::destroyGraphExec(cudaGraphExec_t exec) {
  std::unique_lock lock(handlesMutex_);
  return graphExecs_.erase(reinterpret_cast<const GraphExec*>(exec)) == 1;
}

cudaGraph_t Runtime::adoptGraph(std::unique_ptr<Graph> graph) {
  Graph* key = graph.get();
  std::unique_lock lock(handlesMutex_);
  graphs_.emplace(key, std::move(graph));
  return reinterpret_cast<cudaGraph_t>(key);
}

cudaError_t Runtime::addGraphNode(cudaGraph_t handle,
                                  const std::vector<const GraphNode*>& dependencies,
                                  const std::function<cudaError_t(cudaStream_t builder)>& enqueue,
                                  cudaGraphNode_t* node) {
  std::lock_guard building(graphBuilderMutex_);
  Stream*& builder = graphBuilders_[currentDevice()];
  if (builder == nullptr) {
    // Non-blocking, so that the legacy stream never waits for it; never labelled for the delay
    // knobs, which count the program's own streams.
    auto created = std::make_unique<Stream>(currentDevice(), StreamRole::Created,
                                            cudaStreamNonBlocking, 0, nextStreamId_++,
                                            "graph-builder", device(currentDevice()).dispatch);
    builder = created.get();
    std::unique_lock lock(handlesMutex_);
    streams_.emplace(builder, std::move(created));
  }
  auto session = std::make_shared<CaptureSession>();
  session->origin = builder;
  {
    std::unique_lock lock(handlesMutex_);
    auto found = graphs_.find(reinterpret_cast<Graph*>(handle));
    if (found == graphs_.end() || !found->second) {
      return cudaErrorInvalidValue;
    }
    const auto& nodes = found->second->nodes;
    for (const GraphNode* dependency : dependencies) {
      if (std::none_of(nodes.begin(), nodes.end(),
                       [dependency](const auto& owned) { return owned.get() == dependency; })) {
        return cudaErrorInvalidValue;
      }
    }
    session->graph = std::move(found->second);
  }
  {
    std::lock_guard lock(submitMutex_);
    builder->capture = session;
    builder->captureFrontier = dependencies;
  }
  const std::size_t before = session->graph->nodes.size();
  const cudaError_t result = enqueue(builder->handle());
  {
    std::lock_guard lock(submitMutex_);
    builder->capture.reset();
    builder->captureFrontier.clear();
  }
  auto& nodes = session->graph->nodes;
  if (result == cudaSuccess) {
    if (nodes.size() == before) {
      nodes.push_back(
          std::make_unique<GraphNode>(GraphNode{Work{OperationKind::Marker, {}}, dependencies}));
    }
    *node = reinterpret_cast<cudaGraphNode_t>(nodes.back().get());
  }
  std::unique_lock lock(handlesMutex_);
  graphs_[reinterpret_cast<Graph*>(handle)] = std::move(session->graph);
  return result;
}

void Runtime::markEventReached(cudaEvent_t handle) {
  Event* event = resolveEvent(handle);
  if (event == nullptr) {
    return;
  }
  std::lock_guard lock(submitMutex_);
  event->snapshot = makeFinishedCompletion();
}

} // namespace streamrace::emu
