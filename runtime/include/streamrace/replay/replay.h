// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A trace set merged by time and replayed through one engine, so that collectives order work
// across ranks: what `streamrace report`, `run`, `export` and `explain` start from, and the text
// report they print.
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/engine/symbols.h"
#include "streamrace/report/finding_json.h"
#include "streamrace/report/happens_before_graph.h"
#include "streamrace/report/recorded_replay.h"
#include "streamrace/report/suppressions.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace streamrace {

struct TraceSet;

// What settling did (settle.h), for the report to say.
struct SettleSummary {
  std::size_t processes = 0;       // trace files replayed
  std::size_t with_candidates = 0; // whose replay alone found something
  std::size_t settled = 0;         // replayed against the whole job
  std::size_t rounds = 0;          // passes over the whole job
  // Findings of unsettled processes counted on their representative's word (settle_every=0).
  std::size_t counted_through_representative = 0;
};

struct Replay {
  SymbolTable symbols;
  std::unique_ptr<Engine> engine;
  std::vector<TraceSource> sources;
  std::uint64_t events = 0;
  // Kept only when the replay records its happens-before graph (exports, explain): what they
  // show of each event, never the events.
  std::vector<EventSummary> summaries;
  std::unique_ptr<HappensBeforeGraph> graph;
  std::optional<SettleSummary> settled;

  RecordedReplay recorded() const { return RecordedReplay{summaries, *engine, symbols, *graph}; }
};

// The trace set `paths` names (trace_set.h), replayed. Files cut short are replayed up to their
// last complete record and say so in `sources` (and on stderr); a process that crashed has its
// raw call sites symbolized from its object files. With Recording::Graph, the engine's ordering
// is observed event by event into `graph`.
enum class Recording { FindingsOnly, Graph };
Replay replay_traces(const std::vector<std::string>& paths, const Settings& settings,
                     Recording recording = Recording::FindingsOnly);

// Sees each event before the engine does (sync_advice.h keeps them to replay the run again
// without some). It runs on the replaying thread while the symbol table still grows on the
// decoding one: it may look at ids, not names.
using EventWatcher = std::function<void(const Event&)>;

// replay_traces over a set already opened with `replay.symbols`. With `checked_ranks`, only
// those ranks' accesses are checked, under clocks projected on their actors (settling).
void replay_trace_set(Replay& replay, TraceSet& set, const Settings& settings, Recording recording,
                      const std::vector<bool>* checked_ranks = nullptr,
                      const EventWatcher& watch = {});

// The replay's findings that the suppressions leave.
ReportedFindings unsuppressed_findings(const Replay& replay,
                                       std::optional<Suppressions>& suppressions);

// The text report: "streamrace: replayed N events from M trace files", each finding, the
// SUMMARY line, and what the suppressions hid.
std::string report_text(const Replay& replay, const ReportedFindings& reported,
                        const std::optional<Suppressions>& suppressions);

} // namespace streamrace
