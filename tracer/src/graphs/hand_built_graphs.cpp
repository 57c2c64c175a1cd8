// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "graphs/hand_built_graphs.h"

#include <algorithm>
#include <unordered_set>

namespace streamrace::tracer {

std::vector<HandBuiltGraphs::Step>
HandBuiltGraphs::apply(const GraphBuildCall& call, std::string_view api, const RawStack& stack) {
  switch (call.kind) {
  case GraphBuildCall::Kind::Create:
    graphs_[call.graph] = std::make_shared<Graph>();
    return {};
  case GraphBuildCall::Kind::Destroy:
    graphs_.erase(call.graph);
    return {};
  case GraphBuildCall::Kind::Clone: {
    const auto original = graphs_.find(call.source);
    // A clone of a captured graph is a graph the engine does not know: opaque, like before.
    if (original == graphs_.end()) return {};
    auto clone = std::make_shared<Graph>(*original->second);
    for (Node& node : clone->nodes)
      node.handle_of_original = true;
    graphs_[call.graph] = std::move(clone);
    return {};
  }
  case GraphBuildCall::Kind::FindInClone: {
    const auto clone = graphs_.find(call.graph);
    if (clone == graphs_.end()) return {};
    for (Node& node : clone->second->nodes) {
      if (node.handle_of_original && node.handle == call.original) {
        node.handle = call.node;
        node.handle_of_original = false;
      }
      std::replace(node.dependencies.begin(), node.dependencies.end(), call.original, call.node);
    }
    return {};
  }
  case GraphBuildCall::Kind::AddNode: {
    const auto graph = graphs_.find(call.graph);
    if (graph == graphs_.end()) return {};
    Node node{call.node, call.dependencies, std::nullopt, nullptr, api, stack};
    set_operation(node, call, api, stack);
    // The node holds a copy of the child as it is now, as the runtime's does.
    if (const auto child = graphs_.find(call.source); call.source != 0 && child != graphs_.end())
      node.child = std::make_shared<const Graph>(*child->second);
    graph->second->nodes.push_back(std::move(node));
    return {};
  }
  case GraphBuildCall::Kind::AddEdges: {
    const auto graph = graphs_.find(call.graph);
    if (graph == graphs_.end()) return {};
    auto& nodes = graph->second->nodes;
    for (std::size_t i = 0; i < call.dependencies.size() && i < call.dependents.size(); ++i) {
      const auto target = std::find_if(nodes.begin(), nodes.end(), [&](const Node& node) {
        return node.handle == call.dependents[i];
      });
      if (target != nodes.end()) target->dependencies.push_back(call.dependencies[i]);
    }
    return {};
  }
  case GraphBuildCall::Kind::RemoveEdges: {
    const auto graph = graphs_.find(call.graph);
    if (graph == graphs_.end()) return {};
    for (std::size_t i = 0; i < call.dependencies.size() && i < call.dependents.size(); ++i)
      for (Node& node : graph->second->nodes)
        if (node.handle == call.dependents[i]) std::erase(node.dependencies, call.dependencies[i]);
    return {};
  }
  case GraphBuildCall::Kind::DestroyNode:
    // The call names no graph: the node's is the one that holds it. Its edges go with it.
    for (auto& [handle, graph] : graphs_) {
      auto& nodes = graph->nodes;
      if (std::erase_if(nodes, [&](const Node& node) { return node.answers_to(call.node); }) == 0)
        continue;
      for (Node& node : nodes)
        std::erase(node.dependencies, call.node);
      return {};
    }
    return {};
  case GraphBuildCall::Kind::SetNode:
    if (call.exec != 0) return set_in_executable(call, api, stack);
    // A node of a graph (the call names no graph): what instantiations, updates and clones of
    // the graph copy from now on. Executables made before keep their copies.
    for (auto& [handle, graph] : graphs_)
      for (Node& node : graph->nodes)
        if (node.answers_to(call.node)) {
          set_operation(node, call, api, stack);
          return {};
        }
    return {};
  case GraphBuildCall::Kind::ExecUpdate:
    return update_executable(call, api, stack);
  }
  return {};
}

// A node reports the call that gave it its parameters: the adding call or the latest setter.
void HandBuiltGraphs::set_operation(Node& node, const GraphBuildCall& call, std::string_view api,
                                    const RawStack& stack) {
  node.operation = call.operation;
  node.api = api;
  node.stack = stack;
  // A host node's runs are told apart by its handle (graph_host_nodes.h).
  if (auto* function = node.operation ? std::get_if<HostFunction>(&*node.operation) : nullptr)
    function->node = node.handle;
}

std::vector<HandBuiltGraphs::Step> HandBuiltGraphs::set_in_executable(const GraphBuildCall& call,
                                                                      std::string_view api,
                                                                      const RawStack& stack) {
  // An executable made from a captured graph is not followed node by node (tracer/README.md).
  const auto executable = executables_.find(call.exec);
  if (executable == executables_.end()) return {};
  const auto index = executable->second.node_index.find(call.node);
  if (index == executable->second.node_index.end()) return {};
  // Copied on write: the capture described before stays what earlier launches ran.
  auto changed = std::make_shared<Graph>(*executable->second.graph);
  set_operation(changed->nodes[index->second], call, api, stack);
  executable->second.graph = changed;
  return re_describe(call.exec, *changed, api, stack);
}

std::vector<HandBuiltGraphs::Step> HandBuiltGraphs::update_executable(const GraphBuildCall& call,
                                                                      std::string_view api,
                                                                      const RawStack& stack) {
  const auto source = graphs_.find(call.graph);
  if (source == graphs_.end()) {
    // A captured graph: the engine knows it by its handle already.
    executables_.erase(call.exec);
    return {Step{api, &stack, GraphInstantiate{call.graph, call.exec, true}}};
  }
  Executable& executable = executables_[call.exec];
  const Graph& update = *source->second;
  // The runtime refuses an update of another shape, so the nodes pair up in the order they were
  // added; an executable first described here (made from a captured graph) starts afresh.
  if (!executable.graph || executable.graph->nodes.size() != update.nodes.size())
    executable.node_index.clear();
  for (std::size_t i = 0; i < update.nodes.size(); ++i)
    if (!update.nodes[i].handle_of_original) executable.node_index[update.nodes[i].handle] = i;
  executable.graph = std::make_shared<const Graph>(update);
  return re_describe(call.exec, *executable.graph, api, stack);
}

// Writes a graph out as a capture: a root stream whose capture every lane joins, and per node a
// lane that waits for the completion events of the node's dependencies, runs the node and
// records its own completion. Handles are numbered afresh for every capture (the engine renames
// them per launch), so the engine's streams do not grow with the number of instantiations.
class HandBuiltGraphs::Emitter {
public:
  Emitter(std::string_view api, const RawStack& instantiation, std::vector<Step>& out)
      : api_(api), instantiation_(instantiation), out_(out) {}

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

  void edge(Payload payload) { out_.push_back(Step{api_, &instantiation_, std::move(payload)}); }
  std::uint64_t fresh() { return kHandBuiltGraphHandleBase | next_++; }

  std::string_view api_;
  const RawStack& instantiation_;
  std::vector<Step>& out_;
  EventHandle start_ = 0;
  std::uint64_t next_ = 0;
};

std::vector<HandBuiltGraphs::Step> HandBuiltGraphs::instantiate(GraphHandle graph, GraphHandle exec,
                                                                std::string_view api,
                                                                const RawStack& stack) {
  std::vector<Step> steps;
  const auto found = graphs_.find(graph);
  if (found == graphs_.end()) {
    executables_.erase(exec); // a handle the runtime gave out again, now for a captured graph
    return steps;
  }
  Executable& executable = executables_[exec];
  executable.graph = std::make_shared<const Graph>(*found->second);
  executable.node_index.clear();
  for (std::size_t i = 0; i < executable.graph->nodes.size(); ++i)
    if (!executable.graph->nodes[i].handle_of_original)
      executable.node_index[executable.graph->nodes[i].handle] = i;
  Emitter(api, stack, steps).capture(*executable.graph, graph);
  return steps;
}

std::vector<HandBuiltGraphs::Step> HandBuiltGraphs::re_describe(GraphHandle exec,
                                                                const Graph& graph,
                                                                std::string_view api,
                                                                const RawStack& stack) const {
  std::vector<Step> steps;
  // A graph handle of the executable's own, in the range no pointer reaches: describing it again
  // replaces the engine's previous description instead of adding one per change.
  const GraphHandle described =
      kHandBuiltGraphHandleBase | (exec & (kHandBuiltGraphHandleBase - 1));
  Emitter(api, stack, steps).capture(graph, described);
  steps.push_back(Step{api, &stack, GraphInstantiate{described, exec, true}});
  return steps;
}

void HandBuiltGraphs::destroy_executable(GraphHandle exec) {
  executables_.erase(exec);
}

} // namespace streamrace::tracer
