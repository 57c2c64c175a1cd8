// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Graphs a program builds node by node (cudaGraphCreate, cudaGraphAdd*Node, added edges, clones).
// The engine knows one kind of graph, the captured one (docs/semantics.md rule 11): work recorded
// on streams, ordered by stream order and events. So the front end keeps each graph's nodes as
// they are added and, when the graph is instantiated, describes it to the engine as that
// capture: every node on a lane of its own, each edge an event recorded after the dependency and
// waited for before the dependent. The executable is a snapshot of the graph at that moment, as
// the runtime's is. An executable changed afterwards (a node's parameters set in it, or
// cudaGraphExecUpdate) is described again, as the capture of what it now runs, and re-pointed
// to that capture: its later launches touch the new buffers.
#pragma once

#include "stacks/call_sites.h"

#include "streamrace/engine/event.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace streamrace::tracer {

// One graph-building call as the calling thread read it.
struct GraphBuildCall {
  enum class Kind {
    Create,
    AddNode,
    AddEdges,
    RemoveEdges,
    DestroyNode,
    Clone,
    FindInClone,
    Destroy,
    SetNode,
    ExecUpdate
  };
  Kind kind = Kind::Create;
  GraphHandle graph = 0;      // the graph made, added to, cloned into, destroyed or updated from
  GraphHandle source = 0;     // Clone: the original; a child graph node: the child
  GraphHandle exec = 0;       // SetNode in an executable, ExecUpdate: the executable changed
  std::uint64_t node = 0;     // AddNode: the node made; SetNode, DestroyNode: the node named;
                              // FindInClone: the copy's handle
  std::uint64_t original = 0; // FindInClone: the node of the original graph
  std::vector<std::uint64_t> dependencies; // AddNode: what it follows; Add/RemoveEdges: sources
  std::vector<std::uint64_t> dependents;   // Add/RemoveEdges: edge targets
  std::optional<Payload> operation;        // AddNode, SetNode: what the node does, on no stream yet
};

class HandBuiltGraphs {
public:
  struct Step {
    std::string_view api; // the node's adding (or setting) call, or the instantiating one
    const RawStack* stack;
    Payload payload;
  };

  // Follows one call; `stack` and `api` name the call site of the node it adds or changes.
  // Returns what the engine must process for it: for a call that changes an executable, the
  // capture of what the executable now runs and the instantiation that re-points it; else none.
  std::vector<Step> apply(const GraphBuildCall& call, std::string_view api, const RawStack& stack);

  // The capture that describes `graph` to the engine, to be processed before the instantiation
  // of `exec` (whose call site edges and markers take); empty when the graph was not built by
  // hand. The executable keeps a copy of the graph, for the changes made to it later.
  std::vector<Step> instantiate(GraphHandle graph, GraphHandle exec, std::string_view api,
                                const RawStack& stack);
  // The executable is destroyed: its copy of the graph goes with it.
  void destroy_executable(GraphHandle exec);
  // Whether the node-by-node changes of `exec` are followed: it was instantiated from (or last
  // updated from) a graph built by hand. One made from a captured graph keeps what was captured.
  bool follows(GraphHandle exec) const { return executables_.contains(exec); }

private:
  struct Graph;
  struct Node {
    std::uint64_t handle = 0;
    std::vector<std::uint64_t> dependencies;
    std::optional<Payload> operation;
    std::shared_ptr<const Graph> child; // a child graph node's copy of the child
    std::string_view api;
    RawStack stack;
    // A clone's node keeps its original's handle, for its edges, until the program asks for its
    // own (cudaGraphNodeFindInClone); meanwhile no call names it.
    bool handle_of_original = false;
    bool answers_to(std::uint64_t name) const { return !handle_of_original && handle == name; }
  };
  struct Graph {
    std::vector<Node> nodes;
  };
  // What an executable runs, and the handles its nodes answer to: those of the graph it was
  // instantiated from and of every graph it was updated from, which the runtime pairs with its
  // nodes in the order they were added.
  struct Executable {
    std::shared_ptr<const Graph> graph;
    std::unordered_map<std::uint64_t, std::size_t> node_index;
  };
  class Emitter;

  static void set_operation(Node& node, const GraphBuildCall& call, std::string_view api,
                            const RawStack& stack);
  std::vector<Step> set_in_executable(const GraphBuildCall& call, std::string_view api,
                                      const RawStack& stack);
  std::vector<Step> update_executable(const GraphBuildCall& call, std::string_view api,
                                      const RawStack& stack);
  // The capture of what `exec` now runs, and the instantiation that re-points it to it.
  std::vector<Step> re_describe(GraphHandle exec, const Graph& graph, std::string_view api,
                                const RawStack& stack) const;

  std::unordered_map<GraphHandle, std::shared_ptr<Graph>> graphs_;
  std::unordered_map<GraphHandle, Executable> executables_;
};

} // namespace streamrace::tracer
