// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Stream capture as CUDA defines it: between cudaStreamBeginCapture and cudaStreamEndCapture the
// work enqueued on the stream is recorded into a graph instead of run. A stream that waits for an
// event recorded in the capture joins it, and its work is recorded into the same graph. The graph
// (cudaStreamEndCapture's out parameter), and each executable instantiated from it, carry that
// work; cudaGraphLaunch runs all of it on the launch's stream, in stream order there.
#pragma once

#include "flow_state.h"

#include <optional>
#include <set>
#include <string>

namespace streamrace::analyzer {

void beginCapture(FlowState& state, const std::string& stream);

// The stream whose capture `stream` is recording into, or nullopt when it runs its work.
std::optional<std::string> captureOf(const FlowState& state, const std::string& stream);

// `event` recorded on `stream`: where the stream is capturing, a node of the graph rather than
// an event of the run, and returns true.
bool recordInCapture(FlowState& state, const std::string& event, const std::string& stream);

// `stream` waits for `event`: where the event was recorded in a capture still open, the stream
// joins that capture, and returns true.
bool joinCaptureThroughEvent(FlowState& state, const std::string& stream, const std::string& event);

void recordCapturedWork(FlowState& state, const std::string& capture, GraphAccess access);

// Ends the capture `stream` began (and every stream that joined it), its work now `graph`'s
// (nullopt: a graph the analysis cannot name, whose work is dropped).
void endCapture(FlowState& state, const std::string& stream,
                const std::optional<std::string>& graph);

// `executable` instantiated from `graph` runs the graph's work; an executable is new each time.
void instantiateGraph(FlowState& state, const std::string& graph, const std::string& executable);

// The work a launch of `executable` runs; empty for a graph the analysis saw no capture of.
const std::set<GraphAccess>& workOfGraph(const FlowState& state, const std::string& executable);

} // namespace streamrace::analyzer
