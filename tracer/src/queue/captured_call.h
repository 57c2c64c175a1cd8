// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One traced call as the calling thread hands it to the tracer thread: the event, the API it
// came from, the raw call stack, and what only the calling thread could read.
#pragma once

#include "graphs/graph_host_nodes.h"
#include "graphs/hand_built_graphs.h"
#include "host_threads/host_function_runs.h"
#include "kernels/kernel_rules.h"
#include "stacks/call_sites.h"

#include "streamrace/engine/event.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace streamrace::tracer {

struct CapturedCall {
  std::string_view api; // outlives the tracer: an API-model name or an interned op name
  Payload payload;
  RawStack stack;
  bool native_frames = true; // false: `stack` stays empty (Tracer::record_from_framework)
  ThreadId thread = 0;
  std::uint64_t time_ns = 0;
  // A kernel launch's pointer arguments, which become accesses once allocations are known.
  std::vector<KernelPointer> kernel_pointers;
  // A kernel launch inside a stated op (op_scopes.h): the op's ranges replace those.
  std::optional<std::vector<Access>> stated_accesses;
  // A call that builds a graph node by node: followed by the front end, not the engine (`payload`
  // is then unused).
  std::optional<GraphBuildCall> graph_build;
  // The Python frames of the op's caller, or of the call itself outside any op
  // (python_stacks.h); 0 for none.
  std::uint32_t python_stack = 0;
  // A HostAccess's faulting load or store (host_fault_handler.cpp), kept out of the payload's
  // vector so that the fault handler allocates nothing; size 0: none.
  Access host_access{};
  // A host function launched through the tracer's trampoline: what it touched, once it ran.
  std::shared_ptr<HostFunctionRun> host_function_run;
  // A graph launch: the runs it handed the executable's watched host nodes.
  std::vector<GraphHostRun> graph_host_runs;
};

} // namespace streamrace::tracer
