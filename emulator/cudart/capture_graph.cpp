// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "capture_graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include "completion.h"

namespace streamrace::emu {

bool joinedInto(const std::vector<const GraphNode*>& frontier,
                const std::vector<const GraphNode*>& join) {
  std::set<const GraphNode*> ancestors;
  std::vector<const GraphNode*> pending(join.begin(), join.end());
  while (!pending.empty()) {
    const GraphNode* node = pending.back();
    pending.pop_back();
    if (ancestors.insert(node).second) {
      pending.insert(pending.end(), node->dependencies.begin(), node->dependencies.end());
    }
  }
  return std::all_of(frontier.begin(), frontier.end(),
                     [&ancestors](const GraphNode* node) { return ancestors.count(node) == 1; });
}

GraphExec::GraphExec(const Graph& graph) : userObjects_(graph.userObjects) {
  // Capture appends nodes after their dependencies; a graph built by hand may gain an edge to an
  // earlier node (cudaGraphAddDependencies), so nodes are taken in dependency order.
  std::map<const GraphNode*, std::size_t>& indexOf = indexOf_;
  std::vector<const GraphNode*> pending;
  for (auto it = graph.nodes.rbegin(); it != graph.nodes.rend(); ++it) {
    pending.push_back(it->get());
  }
  std::set<const GraphNode*> entered;
  while (!pending.empty()) {
    const GraphNode* node = pending.back();
    if (indexOf.contains(node)) {
      pending.pop_back();
      continue;
    }
    const auto unplaced = std::find_if(
        node->dependencies.begin(), node->dependencies.end(),
        [&indexOf](const GraphNode* dependency) { return !indexOf.contains(dependency); });
    // Depth first: a node's dependencies are placed before it is met again. (A cycle would meet
    // it with one unplaced; cudaGraphAddDependencies refuses the edge that closes one.)
    if (unplaced != node->dependencies.end() && entered.insert(node).second) {
      pending.insert(pending.end(), node->dependencies.begin(), node->dependencies.end());
      continue;
    }
    pending.pop_back();
    indexOf.emplace(node, works_.size());
    works_.push_back(node->work);
    std::vector<std::size_t> nodeDependencies;
    nodeDependencies.reserve(node->dependencies.size());
    for (const GraphNode* dependency : node->dependencies) {
      nodeDependencies.push_back(indexOf.at(dependency));
    }
    dependencies_.push_back(std::move(nodeDependencies));
  }
  for (const auto& node : graph.nodes) {
    addedOrder_.push_back(indexOf.at(node.get()));
  }
}

bool GraphExec::setWork(const GraphNode* node, Work work) {
  const auto found = indexOf_.find(node);
  if (found == indexOf_.end() || works_[found->second].kind != work.kind) {
    return false;
  }
  works_[found->second] = std::move(work);
  return true;
}

std::optional<GraphExec::UpdateFailure> GraphExec::update(const Graph& graph) {
  const GraphExec updated(graph);
  if (updated.works_.size() != works_.size()) {
    return UpdateFailure{cudaGraphExecUpdateErrorTopologyChanged, nullptr};
  }
  // Index in `updated` -> index here, through the pairing by order of addition.
  std::vector<std::size_t> paired(works_.size());
  for (std::size_t position = 0; position < addedOrder_.size(); ++position) {
    paired[updated.addedOrder_[position]] = addedOrder_[position];
  }
  for (std::size_t position = 0; position < addedOrder_.size(); ++position) {
    const std::size_t mine = addedOrder_[position];
    const std::size_t theirs = updated.addedOrder_[position];
    const GraphNode* node = graph.nodes[position].get();
    if (updated.works_[theirs].kind != works_[mine].kind) {
      return UpdateFailure{cudaGraphExecUpdateErrorNodeTypeChanged, node};
    }
    std::vector<std::size_t> dependencies;
    for (std::size_t dependency : updated.dependencies_[theirs]) {
      dependencies.push_back(paired[dependency]);
    }
    std::vector<std::size_t> expected = dependencies_[mine];
    std::sort(dependencies.begin(), dependencies.end());
    std::sort(expected.begin(), expected.end());
    if (dependencies != expected) {
      return UpdateFailure{cudaGraphExecUpdateErrorTopologyChanged, node};
    }
  }
  for (std::size_t position = 0; position < addedOrder_.size(); ++position) {
    works_[addedOrder_[position]] = updated.works_[updated.addedOrder_[position]];
    indexOf_[graph.nodes[position].get()] = addedOrder_[position];
  }
  return std::nullopt;
}

void GraphExec::run() const {
  std::vector<Completion> done(works_.size());
  std::vector<std::jthread> runners;
  runners.reserve(works_.size());
  for (std::size_t index = 0; index < works_.size(); ++index) {
    runners.emplace_back([this, index, &done] {
      for (std::size_t dependency : dependencies_[index]) {
        done[dependency].wait();
      }
      if (works_[index].body) {
        works_[index].body();
      }
      done[index].markDone();
    });
  }
}

} // namespace streamrace::emu
