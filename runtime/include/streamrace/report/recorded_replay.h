// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A replay kept whole for exports and `explain`: the merged events in the order the engine saw
// them, the engine after them, their names, and the happens-before graph it built.
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/engine/symbols.h"
#include "streamrace/report/happens_before_graph.h"

#include <string>
#include <vector>

namespace streamrace {

struct RecordedReplay {
  const std::vector<Event>& events;
  const Engine& engine;
  const SymbolTable& symbols;
  const HappensBeforeGraph& graph;
};

// "stream 'A' (rank 1)" / "host thread 100 (rank 1)": actors as exports and `explain` name
// them.
std::string actor_on_rank(const RecordedReplay& run, ActorId actor);
// The node of one side of a finding: its op's step.
HappensBeforeGraph::NodeId op_node(const RecordedReplay& run, const AccessSide& side);

} // namespace streamrace
