// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The trace set a list of paths names: files, and folders standing for their *.srtrace files.
// Every trace file is read once: a path named twice (or a file and its folder) and a copy of a
// process's trace under another name (same pid, same start time) would replay that process
// twice, doubling its ops and, in a multi-rank job, giving one rank two voices in every
// collective.
#pragma once

#include "streamrace/engine/symbols.h"
#include "streamrace/report/finding_json.h"
#include "streamrace/trace/trace_reader.h"

#include <string>
#include <vector>

namespace streamrace {

struct TraceSet {
  std::vector<trace::TraceReader> readers; // one per process, in the order named
  std::vector<TraceSource> skipped;        // files cut inside their header, and why
};

// Throws std::runtime_error naming the path for inputs that cannot be read at all (permissions,
// a pipe), and when no file is left to replay. Files cut inside their header are skipped, and
// repeats read once, each with a warning on stderr.
TraceSet open_trace_set(const std::vector<std::string>& paths, SymbolTable& symbols);

// Once the readers are done: every file as a report lists it (the skipped ones first), with a
// warning on stderr for each file read only up to some damage.
std::vector<TraceSource> read_sources(const TraceSet& set);

} // namespace streamrace
