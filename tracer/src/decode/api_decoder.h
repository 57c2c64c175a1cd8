// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Turns one intercepted call, described by its API model entry and its arguments, into the
// engine's event. Pure: no CUDA headers, no process state, so it is unit-tested directly.
#pragma once

#include "decode/call_arguments.h"

#include "streamrace/api_model/api_model.h"
#include "streamrace/engine/event.h"

#include <optional>

namespace streamrace::tracer {

// How the call ended. Only queries turn a "not ready" into an event (one that orders nothing);
// every other failed call did nothing the engine needs to know.
enum class CallOutcome { Succeeded, NotReady, Failed };

struct DecodeInputs {
  CallOutcome outcome = CallOutcome::Succeeded;
  NameId function_name = 0;    // the kernel or host function, when the front end knows it
  std::uint64_t waited_ns = 0; // how long the call held its thread (host waits), 0 if unknown
};

// The event for the call, or nothing when the call has no effect on ordering or memory (failed
// calls, roles the engine has no event for, copies whose addresses the model cannot give).
std::optional<Payload> decode_call(const api_model::ApiFunction& function,
                                   const CallArguments& arguments, const DecodeInputs& inputs);

// What a node added by a cudaGraphAdd*Node call does (api_model: the function's nodeRole), on no
// stream yet: the graph's launch gives it one. Nothing for an empty or child-graph node, or a
// node whose bytes the model cannot name.
std::optional<Payload> decode_graph_node(const api_model::ApiFunction& function,
                                         const CallArguments& arguments,
                                         const DecodeInputs& inputs);

} // namespace streamrace::tracer
