// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The happens-before graph of one replay, as the engine's ordering built it: an observer that
// turns every step into a node on its actor and every join into an edge into a new node of the
// receiving actor. A node stands for what its actor knew at that point; everything a node can
// reach backwards (program order and joins) happened before it. Exports draw it; `explain`
// searches it.
#pragma once

#include "streamrace/engine/ordering_observer.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace streamrace {

class HappensBeforeGraph : public OrderingObserver {
public:
  using NodeId = std::uint32_t;
  static constexpr NodeId kNoNode = ~0u;

  struct Node {
    ActorId actor = 0;
    Epoch epoch = 0;           // the actor's latest step at this node
    bool step = false;         // the step itself, or knowledge that arrived after it
    std::uint32_t event = 0;   // index of the trace event being processed when it appeared
    NodeId previous = kNoNode; // the same actor's node before it
  };
  struct Edge {
    NodeId from = kNoNode;
    NodeId to = kNoNode;
    JoinKind kind = JoinKind::Merge;
    std::uint64_t handle = 0;
  };

  // The replay says which trace event the following steps and joins belong to.
  void set_event(std::uint32_t index) { event_ = index; }

  void step(ActorId actor, Epoch epoch) override;
  void join(const OrderingJoin& join) override;

  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Edge>& edges() const { return edges_; }
  NodeId step_node(ActorId actor, Epoch epoch) const;
  // Edges into `node` (built on first use).
  std::vector<const Edge*> edges_into(NodeId node) const;

  // Why `later` is or is not ordered after `actor`'s steps: the latest node of `actor` it can
  // reach backwards, and the path from there to `later` (both ends included); kNoNode and an
  // empty path when it reaches none.
  struct Reach {
    NodeId latest = kNoNode;
    std::vector<NodeId> path;
  };
  Reach latest_reached(NodeId later, ActorId actor) const;

private:
  struct ActorNodes {
    NodeId last = kNoNode;
    std::vector<NodeId> steps; // by epoch - 1
  };
  ActorNodes& of(ActorId actor);
  NodeId source(const OrderingJoin& join);

  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::vector<ActorNodes> actors_;
  std::uint32_t event_ = 0;
  mutable std::unordered_map<NodeId, std::vector<std::uint32_t>> incoming_;
  mutable std::size_t indexed_edges_ = 0;
};

} // namespace streamrace
