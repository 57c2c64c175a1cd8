// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loads per-process trace files, merges them by time and replays them through one engine:
// what `report`, `export` and `explain` all start from.
#pragma once

#include "streamrace/report/finding_json.h"
#include "streamrace/report/happens_before_graph.h"
#include "streamrace/report/recorded_replay.h"
#include "streamrace/report/suppressions.h"
#include "streamrace/runtime/engine.h"
#include "streamrace/runtime/symbols.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace streamrace::cli {

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

// Throws std::runtime_error naming the path for inputs that cannot be read at all; files cut
// short are replayed up to their last complete record and say so in `sources` (and on
// stderr), files cut inside their header are skipped, and each process's trace is read once
// however often it is named or copied. With `record`, the engine's ordering is observed event by
// event into `graph`.
Replay replay_traces(const std::vector<std::string>& paths, const Options& options,
                     bool record = false);

// The findings the suppressions leave, and how many they hid (counted in their rules).
struct Reported {
  std::vector<Finding> findings;
  std::uint64_t suppressed = 0;
};
Reported unsuppressed_findings(const Replay& replay, std::optional<Suppressions>& suppressions);
// "streamrace: N findings suppressed: <hits> <rule>; ..." with a newline, or empty when none was.
std::string suppressed_line(const Reported& reported,
                            const std::optional<Suppressions>& suppressions);

} // namespace streamrace::cli

namespace streamrace::cli {

// The finding named by its id ("SR-1a2b3c4d") or its number in the report (1, 2, ...); throws
// std::runtime_error listing the ids there are when none matches.
const Finding& select_finding(const Replay& replay, const std::vector<Finding>& findings,
                              const std::string& id);

} // namespace streamrace::cli
