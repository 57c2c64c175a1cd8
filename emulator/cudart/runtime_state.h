// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The emulated machine: devices with their memory arenas and default streams, created streams,
// events, captures and graphs, and the submission rules that decide what each new operation
// waits for (stream order, the legacy default stream's implicit synchronization, event waits).
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "capture_graph.h"
#include "completion.h"
#include "dispatch_order.h"
#include "memory_registry.h"
#include "operation.h"
#include "stream_worker.h"

namespace streamrace::emu {

enum class StreamRole { Legacy, PerThread, Created };

// What a `0` stream handle means for the calling entry point: the plain API means the legacy
// default stream, the `_ptsz`/`_ptds` variants the calling thread's per-thread default stream.
enum class DefaultStream { Legacy, PerThread };

class Stream {
public:
  Stream(int device, StreamRole role, unsigned flags, int priority, unsigned long long id,
         std::string label, DispatchOrder& dispatch)
      : device(device), role(role), flags(flags), priority(priority), id(id),
        worker(std::move(label), dispatch) {}

  bool isBlocking() const {
    return role == StreamRole::PerThread ||
           (role == StreamRole::Created && (flags & cudaStreamNonBlocking) == 0);
  }
  cudaStream_t handle() { return reinterpret_cast<cudaStream_t>(this); }

  const int device;
  const StreamRole role;
  const unsigned flags;
  const int priority;
  const unsigned long long id;
  StreamWorker worker;

  // Guarded by the runtime's submission lock.
  std::shared_ptr<CaptureSession> capture;
  std::vector<const GraphNode*> captureFrontier;
};

struct Event {
  unsigned flags = 0;
  int device = 0;
  // Guarded by the runtime's submission lock.
  CompletionPtr snapshot; // nullptr until first recorded
  std::shared_ptr<CaptureSession> captureSession;
  std::vector<const GraphNode*> captureNodes;
};

class Device {
public:
  Device(int ordinal, std::size_t memoryBytes);
  const int ordinal;
  DeviceArena arena;
  // Every stream of the device starts its work through it; declared before `legacy`, which uses
  // it from construction on.
  DispatchOrder dispatch;
  Stream legacy;
  // Whether CUPTI has been told about this device's primary context.
  std::atomic<bool> contextAnnounced{false};
};

class Runtime {
public:
  static Runtime& instance();
  // Use instance(); public only so that instance() can build the one runtime.
  Runtime();

  int deviceCount() const { return static_cast<int>(devices_.size()); }
  bool validDevice(int ordinal) const { return ordinal >= 0 && ordinal < deviceCount(); }
  Device& device(int ordinal) { return *devices_.at(static_cast<std::size_t>(ordinal)); }
  int currentDevice() const;
  void setCurrentDevice(int ordinal);

  // nullptr when the handle names no live stream.
  Stream* resolveStream(cudaStream_t handle, DefaultStream meaningOfZero);
  Stream& createStream(int device, unsigned flags, int priority);
  bool destroyStream(cudaStream_t handle);

  Event* resolveEvent(cudaEvent_t handle);
  cudaEvent_t createEvent(unsigned flags);
  bool destroyEvent(cudaEvent_t handle);

  // Enqueues `work` on `stream` after its implicit dependencies and `dependencies`. Returns its
  // completion, or nullptr when the stream is capturing (the work became a graph node).
  CompletionPtr submit(Stream& stream, Work work, std::vector<CompletionPtr> dependencies = {});
  void recordEvent(Event& event, Stream& stream);
  void waitEvent(Stream& stream, Event& event);
  // The event's latest snapshot; nullptr when never recorded outside a capture.
  CompletionPtr eventSnapshot(Event& event);
  // A completion finishing after all work enqueued so far on `stream`.
  CompletionPtr drainPoint(Stream& stream);
  void synchronizeDevice(int ordinal);
  bool isCapturing(Stream& stream);

  cudaError_t beginCapture(Stream& stream, cudaStreamCaptureMode mode);
  cudaError_t endCapture(Stream& stream, cudaGraph_t* graph);
  struct CaptureInfo {
    unsigned long long id;
    Graph* graph;
    // Valid until the stream's next captured operation, as the runtime documents.
    const std::vector<const GraphNode*>* frontier;
  };
  std::optional<CaptureInfo> captureInfo(Stream& stream);
  // Replaces (or, with `add`, extends) the nodes the stream's next captured operation depends
  // on; every node must belong to the stream's capture.
  cudaError_t updateCaptureDependencies(Stream& stream, const std::vector<const GraphNode*>& nodes,
                                        bool add);
  // Runs `change` on the graph, an ended one or one still being captured, under the lock that
  // guards both; false when the handle names neither.
  bool changeGraph(cudaGraph_t graph, const std::function<void(Graph&)>& change);
  // Runs `change` on `node` if a graph the program made (not one being captured) holds it; false
  // when none does or `change` refused.
  bool changeGraphNode(const GraphNode* node, const std::function<bool(GraphNode&)>& change);
  // Removes the node, and every edge to it, from the graph that holds it (cudaGraphDestroyNode).
  bool destroyGraphNode(const GraphNode* node);
  bool destroyGraph(cudaGraph_t graph);
  bool knownGraph(cudaGraph_t graph);
  Graph* resolveGraph(cudaGraph_t graph);
  cudaGraphExec_t instantiate(const Graph& graph);
  // A graph of the program's own making (cudaGraphCreate, cudaGraphClone) joins the known ones.
  cudaGraph_t adoptGraph(std::unique_ptr<Graph> graph);
  // Adds one node to a graph built by hand: `enqueue` issues the node's operation on a hidden
  // stream that captures into `graph` after `dependencies`, so nodes are built by the same code,
  // with the same checks, as the stream calls they stand for. An operation that enqueues nothing
  // (an empty copy) still becomes a node, one that does nothing.
  cudaError_t addGraphNode(cudaGraph_t graph, const std::vector<const GraphNode*>& dependencies,
                           const std::function<cudaError_t(cudaStream_t builder)>& enqueue,
                           cudaGraphNode_t* node);
  // An event record node running: waits on the event from now on wait for nothing more.
  void markEventReached(cudaEvent_t event);
  std::shared_ptr<const GraphExec> resolveGraphExec(cudaGraphExec_t exec);
  // Runs `change` on a copy of the executable that replaces it from its next launch on (launches
  // already enqueued keep the one they were given); false when the handle is unknown or
  // `change` refused.
  bool changeGraphExec(cudaGraphExec_t exec, const std::function<bool(GraphExec&)>& change);
  bool destroyGraphExec(cudaGraphExec_t exec);

  MemoryRegistry memory;

private:
  CompletionPtr submitLocked(Stream& stream, Work work, std::vector<CompletionPtr> dependencies);
  Stream& perThreadStream(int device);

  std::vector<std::unique_ptr<Device>> devices_;

  // Guards every stream's capture state and the order in which work reaches the workers.
  std::mutex submitMutex_;

  std::shared_mutex handlesMutex_;
  std::map<Stream*, std::unique_ptr<Stream>> streams_;
  // Destroyed streams finish their work on their own thread; kept so that thread outlives it.
  std::vector<std::unique_ptr<Stream>> retiredStreams_;
  std::vector<std::unique_ptr<Stream>> perThreadStreams_;
  std::map<Event*, std::unique_ptr<Event>> events_;
  std::map<Graph*, std::unique_ptr<Graph>> graphs_;
  // An executable's handle is the address of what it was instantiated as, kept alive while the
  // handle is, so that no other executable gets that address while this one runs a changed copy.
  struct ExecutableSlot {
    std::shared_ptr<const GraphExec> instantiated;
    std::shared_ptr<const GraphExec> current;
  };
  std::map<const GraphExec*, ExecutableSlot> graphExecs_;
  std::atomic<unsigned long long> nextStreamId_{1};
  // Created streams are labelled 1, 2, ... in creation order (the delay knobs name them so).
  std::atomic<unsigned long long> nextCreatedStreamLabel_{1};
  std::atomic<unsigned long long> nextCaptureId_{1};
  // One node is built at a time, through the hidden stream of the device current at the time.
  std::mutex graphBuilderMutex_;
  std::map<int, Stream*> graphBuilders_;
};

} // namespace streamrace::emu
