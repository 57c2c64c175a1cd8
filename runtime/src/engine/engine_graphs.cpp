// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The engine's stream capture and graph launch (rule 11): work captured on a stream is kept, not
// run, and each launch of the instantiated graph replays it on lanes of its own; what a host
// node touched in the launch (HostNodeAccess) is checked right after the node, on its lane.
#include "streamrace/engine/engine.h"

#include <unordered_map>

namespace streamrace {

namespace {

// Graph lanes and graph-local events live in handle ranges no real pointer uses.
constexpr std::uint64_t kGraphLaneBase = 1ull << 63;
constexpr std::uint64_t kGraphEventBase = 1ull << 62;

} // namespace

bool Engine::capture(const Event& event, StreamState& stream) {
  captures_[stream.capture].events.push_back(event);
  return true;
}

// Waiting on an event recorded inside a capture pulls the stream into that capture.
bool Engine::join_capture(const Event& event, StreamState& stream, const EventState& awaited) {
  if (awaited.capture == 0 || !captures_.contains(awaited.capture)) return false;
  stream.capture = awaited.capture;
  captures_[stream.capture].streams.push_back(stream.handle);
  captures_[stream.capture].events.push_back(event);
  return true;
}

void Engine::begin_capture(ThreadState& thread, const CaptureBegin& begin) {
  StreamState& stream = ordering_.stream(thread, begin.stream);
  stream.capture = ++capture_serial_;
  captures_[stream.capture] = CapturedGraph{thread.rank, {stream.handle}, {}};
}

void Engine::end_capture(const EventHeader& header, ThreadState& thread, const CaptureEnd& end) {
  StreamState& stream = ordering_.stream(thread, end.stream);
  auto found = captures_.find(stream.capture);
  if (found == captures_.end()) return;
  auto graph = std::make_shared<const CapturedGraph>(std::move(found->second));
  captures_.erase(found);
  for (StreamHandle member : graph->streams)
    ordering_.stream(thread, member).capture = 0;
  graphs_[RankHandleKey{header.address_space, end.graph}] = std::move(graph);
}

void Engine::instantiate_graph(std::uint32_t address_space, const GraphInstantiate& instantiate) {
  auto graph = graphs_.find(RankHandleKey{address_space, instantiate.graph});
  Executable& executable = executables_[RankHandleKey{address_space, instantiate.exec}];
  executable.graph = graph == graphs_.end() ? nullptr : graph->second;
  // An updated executable keeps its lanes: its next launch is still ordered behind the last.
  if (!instantiate.update || executable.serial == 0) executable.serial = ++executable_serial_;
}

void Engine::destroy_executable(std::uint32_t address_space, const GraphExecDestroy& destroy) {
  const RankHandleKey key{address_space, destroy.exec};
  executables_.erase(key);
  host_node_accesses_.erase(key);
}

void Engine::launch_graph(const Event& event, const GraphLaunch& launch) {
  const EventHeader& header = event.header;
  // Host node accesses given for this launch belong to it alone, even if it runs none of them.
  std::vector<Event> host_node_accesses;
  if (auto given = host_node_accesses_.find(RankHandleKey{header.address_space, launch.exec});
      given != host_node_accesses_.end()) {
    host_node_accesses = std::move(given->second);
    host_node_accesses_.erase(given);
  }
  ThreadState& thread = ordering_.thread(header.rank, header.thread);
  StreamState& stream = ordering_.stream(thread, launch.stream);
  if (capture_if_capturing(event, stream)) return;
  ordering_.enqueue(stream, thread);
  auto found = executables_.find(RankHandleKey{header.address_space, launch.exec});
  if (found == executables_.end() || !found->second.graph) return; // built by hand: opaque
  const CapturedGraph& graph = *found->second.graph;
  const std::uint64_t serial = found->second.serial;

  // Each stream the capture reached runs as a lane of its own; lanes persist per executable
  // because launches of one executable are ordered behind each other.
  std::unordered_map<StreamHandle, StreamHandle> lane_of;
  std::vector<StreamState*> lanes;
  for (std::size_t i = 0; i < graph.streams.size(); ++i) {
    const StreamHandle lane_handle = kGraphLaneBase | (serial << 16) | i;
    lane_of[graph.streams[i]] = lane_handle;
    StreamState* lane = ordering_.find_stream(header.rank, lane_handle);
    if (!lane)
      lane = &ordering_.create_stream(thread,
                                      StreamCreate{.stream = lane_handle,
                                                   .device = stream.device,
                                                   .kind = StreamKind::NonBlocking},
                                      Ordering::StreamOrigin::GraphLane);
    ordering_.join_into(*lane, stream.clock);
    lanes.push_back(lane);
  }
  std::unordered_map<EventHandle, EventHandle> local_event;
  const bool hand_built = is_hand_built_graph_handle(graph.streams.front());
  for (const Event& captured : graph.events) {
    Event replay = captured;
    replay.header.rank = header.rank;
    replay.header.thread = header.thread;
    std::visit(
        [&](auto& payload) {
          if constexpr (requires { payload.stream; }) {
            if (auto lane = lane_of.find(payload.stream); lane != lane_of.end())
              payload.stream = lane->second;
          }
          if constexpr (requires { payload.event; }) {
            if (hand_built && !is_hand_built_graph_handle(payload.event)) return;
            auto [it, inserted] = local_event.try_emplace(
                payload.event, kGraphEventBase | (serial << 16) | local_event.size());
            payload.event = it->second;
          }
        },
        replay.payload);
    process(replay);
    if (const auto* host_node = std::get_if<HostFunction>(&replay.payload);
        host_node != nullptr && host_node->node != 0 && !host_node_accesses.empty())
      run_host_node(header, *host_node, host_node_accesses);
  }
  StreamState& after = ordering_.stream(thread, launch.stream);
  for (StreamState* lane : lanes)
    ordering_.join_into(after, lane->clock);
  ordering_.advance(after);
}

void Engine::run_host_node(const EventHeader& launch, const HostFunction& node,
                           const std::vector<Event>& accesses) {
  for (const Event& given : accesses) {
    const auto& access = std::get<HostNodeAccess>(given.payload);
    if (access.node != node.node) continue;
    Event run{given.header, HostFunction{node.stream, node.function, access.accesses, 0}};
    run.header.rank = launch.rank;
    process(run);
  }
}

} // namespace streamrace
