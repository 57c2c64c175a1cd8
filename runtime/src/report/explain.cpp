// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/explain.h"

#include "streamrace/report/event_names.h"
#include "streamrace/report/finding_id.h"
#include "streamrace/report/finding_names.h"
#include "streamrace/report/finding_text.h"

#include <sstream>

namespace streamrace {

namespace {

// "cudaMemcpy at hpz_step.cpp:130" for the event a node came from.
std::string call_of(const RecordedReplay& run, const HappensBeforeGraph::Node& node) {
  const EventSummary& event = run.events[node.event];
  std::string text = event_api(event, run.symbols);
  if (std::string where = event_file_line(event, run.symbols); !where.empty())
    text += " at " + where;
  return text;
}

std::string op_text(const RecordedReplay& run, HappensBeforeGraph::NodeId id) {
  const auto& node = run.graph.nodes()[id];
  if (!node.step)
    return node.epoch ? "after op #" + std::to_string(node.epoch) : "before its first op";
  return "op #" + std::to_string(node.epoch) + " (" + call_of(run, node) + ")";
}

} // namespace

std::string describe_node(const RecordedReplay& run, HappensBeforeGraph::NodeId id) {
  return actor_on_rank(run, run.graph.nodes()[id].actor) + " " + op_text(run, id);
}

std::string describe_edge(const RecordedReplay& run, const HappensBeforeGraph::Edge& edge) {
  const auto& from = run.graph.nodes()[edge.from];
  const auto& to = run.graph.nodes()[edge.to];
  const std::string source = describe_node(run, edge.from);
  const std::string target = actor_on_rank(run, to.actor);
  // The call that made the join, unless it is the source's own op (a synchronous copy).
  const std::string call = to.event == from.event ? "" : " (" + call_of(run, to) + ")";
  switch (edge.kind) {
  case JoinKind::EnqueueAfterHost:
    return actor_on_rank(run, from.actor) + " then enqueued " + call_of(run, to) + " on " + target;
  case JoinKind::EventWait:
    return target + " waited on event " + hex_text(edge.handle) + " recorded on " + source + call;
  case JoinKind::HostSyncStream:
    return target + " waited for " + source + call;
  case JoinKind::HostSyncEvent:
    return target + " waited for event " + hex_text(edge.handle) + " recorded on " + source + call;
  case JoinKind::HostSyncDevice:
    return target + " synchronized device " + std::to_string(edge.handle) + ", which waits for " +
           source + call;
  case JoinKind::LegacyWaitsForStream:
    return target + " (the legacy default stream) waits for the blocking " + source + call;
  case JoinKind::StreamWaitsForLegacy:
    return target + " (a blocking stream) waits for the legacy default stream, " + source + call;
  case JoinKind::Collective:
    return target + "'s collective on communicator " + hex_text(edge.handle) + " met " + source;
  case JoinKind::SendReceive:
    return target + "'s receive on communicator " + hex_text(edge.handle) +
           " came after the send of " + source;
  case JoinKind::ProgramOrder:
    return target + " went on from what " + actor_on_rank(run, from.actor) +
           " did: one OS thread acting for both ranks";
  case JoinKind::HostHandOff:
    return target + " acquired " + hex_text(edge.handle) + " (a lock, condition, semaphore or " +
           "thread) after " + actor_on_rank(run, from.actor) + " released it" + call;
  case JoinKind::Merge:
    return target + " joined " + source + call;
  }
  return target + " was ordered after " + source;
}

std::string explain_finding(const RecordedReplay& run, const Finding& finding) {
  std::ostringstream out;
  out << finding_id(finding, run.engine, run.symbols) << ": " << finding_kind_name(finding.kind);
  if (finding.count > 1) out << " (" << finding.count << " occurrences)";
  out << "\n";
  if (finding.collective) {
    out << "  Ranks disagree on the collectives of a communicator: a mismatch, not a missing\n"
           "  ordering; `streamrace report` describes the calls.\n";
    return out.str();
  }
  const auto op1 = op_node(run, finding.first);
  const auto op2 = op_node(run, finding.second);
  const std::string stream1 = actor_on_rank(run, finding.first.access.actor);
  const std::string stream2 = actor_on_rank(run, finding.second.access.actor);
  auto op_line = [&](int number, const AccessSide& side, HappensBeforeGraph::NodeId node) {
    out << "  op " << number << ": " << access_mode_word(side.access) << " of " << side.access.size
        << " bytes by " << actor_on_rank(run, side.access.actor) << " in "
        << op_name(side.access, run.symbols);
    if (node != HappensBeforeGraph::kNoNode) {
      if (std::string where =
              event_location(run.events[run.graph.nodes()[node].event], run.symbols);
          !where.empty())
        out << " at " << where;
    }
    out << ", its op #" << side.access.epoch << "\n";
  };
  op_line(1, finding.first, op1);
  op_line(2, finding.second, op2);
  if (op1 == HappensBeforeGraph::kNoNode || op2 == HappensBeforeGraph::kNoNode) {
    out << "  The replay recorded no step for these ops; no chain to show.\n";
    return out.str();
  }

  out << "Why they are unordered:\n";
  const HappensBeforeGraph::Reach reach = run.graph.latest_reached(op2, finding.first.access.actor);
  if (reach.latest == HappensBeforeGraph::kNoNode) {
    out << "  op 2 is ordered after nothing " << stream1 << " did: no event, synchronization or\n"
        << "  collective connects " << stream1 << " to " << stream2 << " before op 2.\n";
  } else {
    const auto& latest = run.graph.nodes()[reach.latest];
    out << "  op 2 is ordered after " << stream1 << " only up to its " << op_text(run, reach.latest)
        << ",\n  which comes before op 1 (#" << finding.first.access.epoch << "). The chain:\n";
    int line = 1;
    for (std::size_t i = 1; i < reach.path.size(); ++i) {
      const auto a = reach.path[i - 1];
      const auto b = reach.path[i];
      const auto& nb = run.graph.nodes()[b];
      if (nb.previous == a) {
        // Program order: say so only where a run of it ends (at a join, or at op 2).
        const bool run_ends =
            i + 1 == reach.path.size() || run.graph.nodes()[reach.path[i + 1]].previous != b;
        if (run_ends && nb.step)
          out << "    " << line++ << ". " << actor_on_rank(run, nb.actor)
              << " ran its ops in order up to " << (b == op2 ? "op 2, " : "") << op_text(run, b)
              << "\n";
        continue;
      }
      for (const HappensBeforeGraph::Edge* edge : run.graph.edges_into(b))
        if (edge->from == a) {
          out << "    " << line++ << ". " << describe_edge(run, *edge) << "\n";
          break;
        }
    }
    if (latest.epoch >= finding.first.access.epoch)
      out << "  (the recorded graph orders op 1 before op 2 although the engine reported them\n"
             "  unordered: the graph and the engine disagree, which is a streamrace bug)\n";
    else
      out << "  Nothing " << stream1 << " did after its op #" << latest.epoch
          << " reaches op 2, so op 1 and op 2 may run in either order.\n";
  }
  out << "Missing edge:\n  " << stream1 << " op #" << finding.first.access.epoch << " -> "
      << stream2 << " op #" << finding.second.access.epoch;
  if (std::string fix = fix_text(finding, run.engine, run.symbols); !fix.empty())
    out << ": " << fix;
  out << "\n";
  return out.str();
}

} // namespace streamrace
