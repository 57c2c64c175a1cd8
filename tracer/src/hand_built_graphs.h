// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Graphs a program builds node by node (cudaGraphCreate, cudaGraphAdd*Node, added edges, clones).
// The engine knows one kind of graph, the captured one (docs/semantics.md rule 11): work recorded
// on streams, ordered by stream order and events. So the front end keeps each graph's nodes as
// they are added and, when the graph is instantiated, describes it to the engine as that
// capture: every node on a lane of its own, each edge an event recorded after the dependency and
// waited for before the dependent. The executable is a snapshot of the graph at that moment, as
// the runtime's is.
#pragma once

#include "call_sites.h"

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
  enum class Kind { Create, AddNode, AddEdges, Clone, Destroy };
  Kind kind = Kind::Create;
  GraphHandle graph = 0;                   // the graph made, added to, cloned into or destroyed
  GraphHandle source = 0;                  // Clone: the original; a child graph node: the child
  std::uint64_t node = 0;                  // AddNode: the node made
  std::vector<std::uint64_t> dependencies; // AddNode: what it follows; AddEdges: edge sources
  std::vector<std::uint64_t> dependents;   // AddEdges: edge targets
  std::optional<Payload> operation;        // AddNode: what the node does, on no stream yet
};

class HandBuiltGraphs {
public:
  // Follows one call; `stack` and `api` name the call site of the node it adds.
  void apply(const GraphBuildCall& call, std::string_view api, const RawStack& stack);

  struct Step {
    std::string_view api; // the node's adding call, or cudaGraphInstantiate for an edge
    const RawStack* stack;
    Payload payload;
  };
  // The capture that describes `graph` to the engine, to be processed before the instantiation
  // (whose call site edges and markers take); empty when the graph was not built by hand.
  std::vector<Step> as_capture(GraphHandle graph, const RawStack& instantiation) const;

private:
  struct Graph;
  struct Node {
    std::uint64_t handle = 0;
    std::vector<std::uint64_t> dependencies;
    std::optional<Payload> operation;
    std::shared_ptr<const Graph> child; // a child graph node's copy of the child
    std::string_view api;
    RawStack stack;
  };
  struct Graph {
    std::vector<Node> nodes;
  };
  class Emitter;

  std::unordered_map<GraphHandle, std::shared_ptr<Graph>> graphs_;
};

} // namespace streamrace::tracer
