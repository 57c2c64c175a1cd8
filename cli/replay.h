// Loads per-process trace files, merges them by time and replays them through one engine:
// what `report`, `export` and `explain` all start from.
#pragma once

#include "streamrace/report/finding_json.h"
#include "streamrace/runtime/engine.h"
#include "streamrace/runtime/symbols.h"

#include <memory>
#include <string>
#include <vector>

namespace streamrace::cli {

struct Replay {
  SymbolTable symbols;
  std::unique_ptr<Engine> engine;
  std::vector<TraceSource> sources;
  std::uint64_t events = 0;
};

// Throws std::runtime_error naming the path for inputs that cannot be read at all; files cut
// short are replayed up to their last complete record and say so in `sources` (and on
// stderr).
Replay replay_traces(const std::vector<std::string>& paths, const Options& options);

} // namespace streamrace::cli
