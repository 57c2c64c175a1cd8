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

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace streamrace {

struct Replay {
  SymbolTable symbols;
  std::unique_ptr<Engine> engine;
  std::vector<TraceSource> sources;
  std::uint64_t events = 0;
  // Kept only when the replay records its happens-before graph (exports, explain).
  std::vector<Event> merged;
  std::unique_ptr<HappensBeforeGraph> graph;

  RecordedReplay recorded() const { return RecordedReplay{merged, *engine, symbols, *graph}; }
};

// The trace set `paths` names (trace_set.h), replayed. Files cut short are replayed up to their
// last complete record and say so in `sources` (and on stderr); a process that crashed has its
// raw call sites symbolized from its object files. With `record`, the engine's ordering is
// observed event by event into `graph`.
Replay replay_traces(const std::vector<std::string>& paths, const Options& options,
                     bool record = false);

// The replay's findings that the suppressions leave.
ReportedFindings unsuppressed_findings(const Replay& replay,
                                       std::optional<Suppressions>& suppressions);

// The text report: "streamrace: replayed N events from M trace files", each finding, the
// SUMMARY line, and what the suppressions hid.
std::string report_text(const Replay& replay, const ReportedFindings& reported,
                        const std::optional<Suppressions>& suppressions);

} // namespace streamrace
