// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "graph_capture.h"

namespace streamrace::analyzer {
namespace {

// The capture's work is kept under a key no graph or stream variable can have.
std::string captureKey(const std::string& stream) {
  return "<capture of " + stream + ">";
}

} // namespace

void beginCapture(FlowState& state, const std::string& stream) {
  setEntry(state.capturingStreams, stream, stream);
  eraseEntry(state.graphWork, captureKey(stream));
}

std::optional<std::string> captureOf(const FlowState& state, const std::string& stream) {
  if (auto found = state.capturingStreams->find(stream); found != state.capturingStreams->end())
    return found->second;
  return std::nullopt;
}

bool recordInCapture(FlowState& state, const std::string& event, const std::string& stream) {
  std::optional<std::string> capture = captureOf(state, stream);
  if (!capture) {
    eraseEntry(state.capturedEvents, event);
    return false;
  }
  setEntry(state.capturedEvents, event, *capture);
  return true;
}

bool joinCaptureThroughEvent(FlowState& state, const std::string& stream,
                             const std::string& event) {
  auto found = state.capturedEvents->find(event);
  if (found == state.capturedEvents->end()) return false;
  const std::string capture = found->second;
  if (!captureOf(state, capture)) return false;
  setEntry(state.capturingStreams, stream, capture);
  return true;
}

void recordCapturedWork(FlowState& state, const std::string& capture, GraphAccess access) {
  const std::string key = captureKey(capture);
  if (auto found = state.graphWork->find(key);
      found != state.graphWork->end() && found->second.contains(access))
    return;
  state.graphWork.edit()[key].insert(std::move(access));
}

void endCapture(FlowState& state, const std::string& stream,
                const std::optional<std::string>& graph) {
  std::optional<std::string> capture = captureOf(state, stream);
  if (!capture) return;
  auto ofThisCapture = [&](const auto& entry) { return entry.second == *capture; };
  eraseIf(state.capturingStreams, ofThisCapture);
  eraseIf(state.capturedEvents, ofThisCapture);
  const std::string key = captureKey(*capture);
  auto work = state.graphWork->find(key);
  std::set<GraphAccess> captured =
      work == state.graphWork->end() ? std::set<GraphAccess>{} : work->second;
  eraseEntry(state.graphWork, key);
  if (graph) setEntry(state.graphWork, *graph, std::move(captured));
}

void instantiateGraph(FlowState& state, const std::string& graph, const std::string& executable) {
  auto work = state.graphWork->find(graph);
  if (work == state.graphWork->end()) {
    eraseEntry(state.graphWork, executable);
    return;
  }
  setEntry(state.graphWork, executable, std::set<GraphAccess>(work->second));
}

const std::set<GraphAccess>& workOfGraph(const FlowState& state, const std::string& executable) {
  static const std::set<GraphAccess> kNone;
  auto work = state.graphWork->find(executable);
  return work == state.graphWork->end() ? kNone : work->second;
}

} // namespace streamrace::analyzer
