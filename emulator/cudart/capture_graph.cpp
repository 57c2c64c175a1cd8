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
  std::map<const GraphNode*, std::size_t> indexOf;
  for (const auto& node : graph.nodes) {
    indexOf.emplace(node.get(), works_.size());
    works_.push_back(node->work);
    std::vector<std::size_t> nodeDependencies;
    // Capture appends nodes after their dependencies, so every index is already known.
    for (const GraphNode* dependency : node->dependencies) {
      nodeDependencies.push_back(indexOf.at(dependency));
    }
    dependencies_.push_back(std::move(nodeDependencies));
  }
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
