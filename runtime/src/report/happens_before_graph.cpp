// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/happens_before_graph.h"

#include <algorithm>
#include <deque>

namespace streamrace {

HappensBeforeGraph::ActorNodes& HappensBeforeGraph::of(ActorId actor) {
  if (actor >= actors_.size()) actors_.resize(actor + 1);
  return actors_[actor];
}

void HappensBeforeGraph::step(ActorId actor, Epoch epoch) {
  ActorNodes& nodes = of(actor);
  const NodeId id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(
      Node{.actor = actor, .epoch = epoch, .step = true, .event = event_, .previous = nodes.last});
  nodes.last = id;
  if (nodes.steps.size() < epoch) nodes.steps.resize(epoch, kNoNode);
  nodes.steps[epoch - 1] = id;
}

HappensBeforeGraph::NodeId HappensBeforeGraph::step_node(ActorId actor, Epoch epoch) const {
  if (actor >= actors_.size() || epoch == 0 || epoch > actors_[actor].steps.size()) return kNoNode;
  return actors_[actor].steps[epoch - 1];
}

HappensBeforeGraph::NodeId HappensBeforeGraph::source(const OrderingJoin& join) {
  if (join.from_step) return step_node(join.from, join.from_epoch);
  return join.from < actors_.size() ? actors_[join.from].last : kNoNode;
}

void HappensBeforeGraph::join(const OrderingJoin& join) {
  const NodeId from = source(join);
  if (from == kNoNode) return; // the source had done and learned nothing yet
  ActorNodes& target = of(join.to);
  // Several joins into one actor while one trace event is processed land on one node.
  NodeId to = target.last;
  if (to == kNoNode || nodes_[to].step || nodes_[to].event != event_) {
    const Epoch epoch = to == kNoNode ? 0 : nodes_[to].epoch;
    to = static_cast<NodeId>(nodes_.size());
    nodes_.push_back(Node{
        .actor = join.to, .epoch = epoch, .step = false, .event = event_, .previous = target.last});
    target.last = to;
  }
  edges_.push_back(Edge{from, to, join.kind, join.handle});
}

std::vector<const HappensBeforeGraph::Edge*> HappensBeforeGraph::edges_into(NodeId node) const {
  for (; indexed_edges_ < edges_.size(); ++indexed_edges_)
    incoming_[edges_[indexed_edges_].to].push_back(static_cast<std::uint32_t>(indexed_edges_));
  std::vector<const Edge*> into;
  if (auto it = incoming_.find(node); it != incoming_.end())
    for (std::uint32_t index : it->second)
      into.push_back(&edges_[index]);
  return into;
}

HappensBeforeGraph::Reach HappensBeforeGraph::latest_reached(NodeId later, ActorId actor) const {
  Reach reach;
  if (later == kNoNode) return reach;
  // Backwards from `later`, fewest joins first (0-1 breadth-first search: program order costs
  // nothing), so the chain found crosses as few streams, threads and ranks as it can.
  struct Visit {
    std::uint32_t joins = ~0u;
    NodeId from = kNoNode;
  };
  std::unordered_map<NodeId, Visit> visits{{later, Visit{0, kNoNode}}};
  std::deque<NodeId> queue{later};
  // A 0-1 breadth-first search: a step in program order costs no join, so it goes to the
  // front of the queue, and a join edge to the back.
  auto improves = [&](NodeId next, NodeId from, std::uint32_t joins) {
    if (next == kNoNode) return false;
    Visit& visit = visits[next];
    if (visit.joins <= joins) return false;
    visit = Visit{joins, from};
    return true;
  };
  while (!queue.empty()) {
    const NodeId node = queue.front();
    queue.pop_front();
    const Node& n = nodes_[node];
    const std::uint32_t joins = visits.at(node).joins;
    if (n.actor == actor && node != later) {
      const bool newer = reach.latest == kNoNode || n.epoch > nodes_[reach.latest].epoch ||
                         (n.epoch == nodes_[reach.latest].epoch && node > reach.latest);
      if (newer) reach.latest = node;
      continue; // earlier nodes of `actor` are older still
    }
    if (improves(n.previous, node, joins)) queue.push_front(n.previous);
    for (const Edge* edge : edges_into(node))
      if (improves(edge->from, node, joins + 1)) queue.push_back(edge->from);
  }
  if (reach.latest == kNoNode) return reach;
  for (NodeId node = reach.latest; node != kNoNode; node = visits.at(node).from)
    reach.path.push_back(node);
  return reach;
}

} // namespace streamrace
