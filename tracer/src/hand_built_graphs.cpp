// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "hand_built_graphs.h"

#include <algorithm>
#include <unordered_set>

namespace streamrace::tracer {

void HandBuiltGraphs::apply(const GraphBuildCall& call, std::string_view api,
                            const RawStack& stack) {
  switch (call.kind) {
  case GraphBuildCall::Kind::Create:
    graphs_[call.graph] = std::make_shared<Graph>();
    return;
  case GraphBuildCall::Kind::Destroy:
    graphs_.erase(call.graph);
    return;
  case GraphBuildCall::Kind::Clone: {
    const auto original = graphs_.find(call.source);
    // A clone of a captured graph is a graph the engine does not know: opaque, like before.
    if (original != graphs_.end()) graphs_[call.graph] = std::make_shared<Graph>(*original->second);
    return;
  }
  case GraphBuildCall::Kind::AddNode: {
    const auto graph = graphs_.find(call.graph);
    if (graph == graphs_.end()) return;
    Node node{call.node, call.dependencies, call.operation, nullptr, api, stack};
    // A host node's runs are told apart by its handle (graph_host_nodes.h).
    if (auto* function = node.operation ? std::get_if<HostFunction>(&*node.operation) : nullptr)
      function->node = call.node;
    // The node holds a copy of the child as it is now, as the runtime's does.
    if (const auto child = graphs_.find(call.source); call.source != 0 && child != graphs_.end())
      node.child = std::make_shared<const Graph>(*child->second);
    graph->second->nodes.push_back(std::move(node));
    return;
  }
  case GraphBuildCall::Kind::AddEdges: {
    const auto graph = graphs_.find(call.graph);
    if (graph == graphs_.end()) return;
    auto& nodes = graph->second->nodes;
    for (std::size_t i = 0; i < call.dependencies.size() && i < call.dependents.size(); ++i) {
      const auto target = std::find_if(nodes.begin(), nodes.end(), [&](const Node& node) {
        return node.handle == call.dependents[i];
      });
      if (target != nodes.end()) target->dependencies.push_back(call.dependencies[i]);
    }
    return;
  }
  }
}

// Writes a graph out as a capture: a root stream whose capture every lane joins, and per node a
// lane that waits for the completion events of the node's dependencies, runs the node and
// records its own completion. Handles are numbered afresh for every capture (the engine renames
// them per launch), so the engine's streams do not grow with the number of instantiations.
class HandBuiltGraphs::Emitter {
public:
  Emitter(const RawStack& instantiation, std::vector<Step>& out)
      : instantiation_(instantiation), out_(out) {}

  void capture(const Graph& graph, GraphHandle handle) {
    const StreamHandle root = fresh();
    start_ = fresh();
    edge(CaptureBegin{root});
    edge(EventRecord{start_, root});
    emit(graph, {});
    edge(CaptureEnd{root, handle});
  }

private:
  // Emits every node of `graph` after `entry` (the events a child graph's nodes wait for);
  // returns the completion events of all its nodes.
  std::vector<EventHandle> emit(const Graph& graph, const std::vector<EventHandle>& entry) {
    std::unordered_map<std::uint64_t, EventHandle> completion;
    std::vector<EventHandle> completions;
    std::unordered_set<std::uint64_t> in_graph;
    for (const Node& node : graph.nodes)
      in_graph.insert(node.handle);
    // Nodes in dependency order; an edge may point to an earlier node (cudaGraphAddDependencies).
    std::vector<const Node*> pending;
    for (auto it = graph.nodes.rbegin(); it != graph.nodes.rend(); ++it)
      pending.push_back(&*it);
    std::unordered_set<const Node*> entered;
    while (!pending.empty()) {
      const Node* node = pending.back();
      if (completion.contains(node->handle)) {
        pending.pop_back();
        continue;
      }
      if (entered.insert(node).second) {
        for (std::uint64_t dependency : node->dependencies)
          for (const Node& other : graph.nodes)
            if (other.handle == dependency && !completion.contains(dependency))
              pending.push_back(&other);
        if (pending.back() != node) continue;
      }
      pending.pop_back();
      const EventHandle done = emit_node(*node, completion, in_graph, entry);
      completion.emplace(node->handle, done);
      completions.push_back(done);
    }
    return completions;
  }

  EventHandle emit_node(const Node& node,
                        const std::unordered_map<std::uint64_t, EventHandle>& completion,
                        const std::unordered_set<std::uint64_t>& in_graph,
                        const std::vector<EventHandle>& entry) {
    const StreamHandle lane = fresh();
    edge(StreamWaitEvent{lane, start_}); // joins the capture
    bool follows_a_node = false;
    for (std::uint64_t dependency : node.dependencies) {
      if (!in_graph.contains(dependency)) continue;
      if (auto found = completion.find(dependency); found != completion.end()) {
        edge(StreamWaitEvent{lane, found->second});
        follows_a_node = true;
      }
    }
    if (!follows_a_node)
      for (EventHandle event : entry)
        edge(StreamWaitEvent{lane, event});
    if (node.child) {
      const EventHandle started = fresh();
      edge(EventRecord{started, lane});
      for (EventHandle child_done : emit(*node.child, {started}))
        edge(StreamWaitEvent{lane, child_done});
    } else if (node.operation) {
      Payload operation = *node.operation;
      std::visit(
          [lane](auto& payload) {
            if constexpr (requires { payload.stream; }) payload.stream = lane;
          },
          operation);
      out_.push_back(Step{node.api, &node.stack, std::move(operation)});
    }
    const EventHandle done = fresh();
    edge(EventRecord{done, lane});
    return done;
  }

  void edge(Payload payload) {
    out_.push_back(Step{"cudaGraphInstantiate", &instantiation_, std::move(payload)});
  }
  std::uint64_t fresh() { return kHandBuiltGraphHandleBase | next_++; }

  const RawStack& instantiation_;
  std::vector<Step>& out_;
  EventHandle start_ = 0;
  std::uint64_t next_ = 0;
};

std::vector<HandBuiltGraphs::Step>
HandBuiltGraphs::as_capture(GraphHandle graph, const RawStack& instantiation) const {
  std::vector<Step> steps;
  const auto found = graphs_.find(graph);
  if (found == graphs_.end()) return steps;
  Emitter(instantiation, steps).capture(*found->second, graph);
  return steps;
}

} // namespace streamrace::tracer
