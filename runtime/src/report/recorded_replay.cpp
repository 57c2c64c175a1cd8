// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/recorded_replay.h"

#include "streamrace/report/finding_names.h"
#include "streamrace/report/rank_names.h"

namespace streamrace {

std::string actor_on_rank(const RecordedReplay& run, ActorId actor) {
  return actor_text(run.engine, run.symbols, actor) + " (" +
         RankNames(run.engine).name(run.engine.ordering().actor(actor).rank) + ")";
}

HappensBeforeGraph::NodeId op_node(const RecordedReplay& run, const AccessSide& side) {
  return run.graph.step_node(side.access.actor, side.access.epoch);
}

} // namespace streamrace
