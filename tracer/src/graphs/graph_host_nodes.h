// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What host nodes of CUDA graphs touch (the `watch_host_accesses` setting). A host node, added by
// hand (cudaGraphAddHostNode) or captured (cudaLaunchHostFunc into a capturing stream), runs once
// per launch of an executable made from its graph, on a thread of the runtime's. So the
// preloaded tracer gives every instantiated executable trampolines of its own for its host nodes
// (cudaGraphExecHostNodeSetParams: the program's graph keeps its own functions), and each launch
// hands each of them a run (host_function_runs.h) for the runtime to mark when it calls the
// node: a node's runs start in launch order, because the runtime orders launches of one
// executable. The launch's event carries the runs; the tracer thread waits for them and gives
// the engine what each touched before the launch (HostNodeAccess), to check at the node's place
// in it. The engine knows which replayed host function is which node by the node's handle: a
// node added by hand has it from its adding call, a captured one from the capture, asked right
// after the launch that made it (its event is held until then).
#pragma once

#include "host_threads/host_function_runs.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace streamrace::tracer {

struct CapturedCall;
class ExecHostNode;

// A run a graph launch handed one of the executable's host nodes.
struct GraphHostRun {
  std::uint64_t node = 0; // the graph's node, as the engine knows it
  std::shared_ptr<HostFunctionRun> run;
  std::shared_ptr<ExecHostNode> owner;
};

// The runs the calling thread's graph launch handed out, while that launch is in progress (its
// CUPTI callback records the event); taken once.
std::vector<GraphHostRun> take_launched_graph_runs();

// The tracer thread gave up on a run of this node: it stops being watched (a node whose function
// the program replaced in a way the tracer does not see would otherwise hold up every launch).
void stop_watching(ExecHostNode& node);

// While a host function is launched into a capturing stream, on the launching thread: holds the
// launch's call back (queued by the runtime's callback inside the launch) until the launch
// returns, then names the node it became and queues it.
class CapturedHostLaunch {
public:
  CapturedHostLaunch(void* stream, bool per_thread);
  ~CapturedHostLaunch();
  CapturedHostLaunch(const CapturedHostLaunch&) = delete;
  CapturedHostLaunch& operator=(const CapturedHostLaunch&) = delete;

  // From the tracer's recording of a call on this thread: true when `call` was held back.
  static bool hold(CapturedCall& call);

private:
  void* stream_;
  bool per_thread_;
};

} // namespace streamrace::tracer
