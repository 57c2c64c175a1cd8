// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/dot_export.h"

#include "streamrace/report/event_names.h"
#include "streamrace/report/explain.h"
#include "streamrace/report/finding_id.h"
#include "streamrace/report/finding_text.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace streamrace {

namespace {

std::string dot_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

struct Window {
  ActorId actor = 0;
  Epoch first = 1;
  Epoch last = 0;
  bool contains(Epoch epoch) const { return epoch >= first && epoch <= last; }
};

} // namespace

std::string finding_dot(const RecordedReplay& run, const Finding& finding, Epoch window) {
  using NodeId = HappensBeforeGraph::NodeId;
  const HappensBeforeGraph& graph = run.graph;
  const std::string id = finding_id(finding, run.engine, run.symbols);
  std::ostringstream out;
  out << "digraph " << dot_quote(id)
      << " {\n  label=" << dot_quote(id + ": " + finding_kind_name(finding.kind))
      << ";\n  labelloc=t;\n"
      << "  node [shape=box, fontsize=10];\n  edge [fontsize=9];\n";
  if (finding.collective) {
    out << "  note [label=\"ranks disagree on a collective: no ordering to draw\"];\n}\n";
    return out.str();
  }
  const NodeId op1 = op_node(run, finding.first);
  const NodeId op2 = op_node(run, finding.second);
  const Epoch e1 = finding.first.access.epoch;
  const Epoch e2 = finding.second.access.epoch;
  const auto last_step = [&](ActorId actor, Epoch from) {
    Epoch e = from;
    while (graph.step_node(actor, e + 1) != HappensBeforeGraph::kNoNode)
      ++e;
    return e;
  };
  std::vector<Window> windows{{finding.first.access.actor, e1 > window ? e1 - window : 1,
                               std::min(e1 + window, last_step(finding.first.access.actor, e1))},
                              {finding.second.access.actor, e2 > window ? e2 - window : 1,
                               std::min(e2 + window, last_step(finding.second.access.actor, e2))}};
  const HappensBeforeGraph::Reach reach = graph.latest_reached(op2, finding.first.access.actor);
  const NodeId latest =
      reach.latest == HappensBeforeGraph::kNoNode
          ? HappensBeforeGraph::kNoNode
          : graph.step_node(finding.first.access.actor, graph.nodes()[reach.latest].epoch);
  // The latest point op 2 is ordered after joins the drawing even when it is further back.
  std::set<NodeId> extra;
  if (latest != HappensBeforeGraph::kNoNode && !windows[0].contains(graph.nodes()[latest].epoch))
    extra.insert(latest);

  auto name = [](NodeId node) { return "n" + std::to_string(node); };
  auto in_window = [&](NodeId node) {
    const auto& n = graph.nodes()[node];
    for (const Window& w : windows)
      if (w.actor == n.actor && w.contains(n.epoch)) return true;
    return extra.contains(node);
  };
  for (std::size_t w = 0; w < windows.size(); ++w) {
    out << "  subgraph cluster_" << w
        << " {\n    label=" << dot_quote(actor_on_rank(run, windows[w].actor)) << ";\n";
    std::vector<NodeId> shown;
    if (w == 0)
      for (NodeId node : extra)
        shown.push_back(node);
    for (Epoch e = windows[w].first; e <= windows[w].last; ++e)
      if (NodeId node = graph.step_node(windows[w].actor, e); node != HappensBeforeGraph::kNoNode)
        shown.push_back(node);
    for (NodeId node : shown) {
      const auto& n = graph.nodes()[node];
      const Event& event = run.events[n.event];
      std::string label = "#" + std::to_string(n.epoch) + " " + event_api(event, run.symbols);
      if (std::string where = event_file_line(event, run.symbols); !where.empty())
        label += "\n" + where;
      out << "    " << name(node) << " [label=" << dot_quote(label);
      if (node == op1 || node == op2)
        out << ", style=filled, fillcolor=\"#ffd0d0\", penwidth=2, xlabel="
            << dot_quote(node == op1 ? "op 1" : "op 2");
      out << "];\n";
    }
    for (std::size_t i = 1; i < shown.size(); ++i)
      out << "    " << name(shown[i - 1]) << " -> " << name(shown[i]) << " [color=gray50"
          << (graph.nodes()[shown[i]].epoch != graph.nodes()[shown[i - 1]].epoch + 1
                  ? ", style=dotted"
                  : "")
          << "];\n";
    out << "  }\n";
  }

  // Edges the engine made between the two streams: from the step a source knew up to, into
  // the first step of the target that ran with it.
  std::set<std::pair<NodeId, NodeId>> drawn;
  for (const HappensBeforeGraph::Edge& edge : graph.edges()) {
    const auto& from = graph.nodes()[edge.from];
    const auto& to = graph.nodes()[edge.to];
    if (from.actor == to.actor) continue;
    const NodeId source = graph.step_node(from.actor, from.epoch);
    const NodeId target = to.step ? edge.to : graph.step_node(to.actor, to.epoch + 1);
    if (source == HappensBeforeGraph::kNoNode || target == HappensBeforeGraph::kNoNode) continue;
    if (!in_window(source) || !in_window(target) || !drawn.emplace(source, target).second) continue;
    out << "  " << name(source) << " -> " << name(target)
        << " [color=blue, label=" << dot_quote(join_kind_name(edge.kind)) << "];\n";
  }
  if (latest != HappensBeforeGraph::kNoNode && !drawn.contains({latest, op2})) {
    std::string via;
    for (std::size_t i = 1; i < reach.path.size(); ++i)
      for (const HappensBeforeGraph::Edge* edge : graph.edges_into(reach.path[i]))
        if (edge->from == reach.path[i - 1]) {
          via += (via.empty() ? "" : ", ") + std::string(join_kind_name(edge->kind));
          break;
        }
    out << "  " << name(latest) << " -> " << name(op2)
        << " [color=darkgreen, style=bold, constraint=false, label="
        << dot_quote("ordered after (via " + (via.empty() ? std::string("program order") : via) +
                     ")")
        << "];\n";
  }
  std::string fix = fix_text(finding, run.engine, run.symbols);
  out << "  " << name(op1) << " -> " << name(op2)
      << " [style=dashed, color=red, fontcolor=red, penwidth=2, constraint=false, label="
      << dot_quote("missing: " + (fix.empty() ? std::string("no ordering") : fix)) << "];\n}\n";
  return out.str();
}

} // namespace streamrace
