// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A replay as a Chrome trace-event JSON file (the JSON Object Format, "traceEvents"), which
// ui.perfetto.dev and chrome://tracing open: a process per rank, a track per stream and per host
// thread, ops as slices, the engine's happens-before edges as flow arrows, findings marked.
#pragma once

#include "streamrace/report/recorded_replay.h"

#include <ostream>
#include <string>
#include <vector>

namespace streamrace {

// A verdict on a call site, marked on each of its executions: the ops of that API whose program
// line (event_names.h) is the site's.
struct PerfettoSiteMark {
  std::string api;      // "cudaStreamSynchronize"
  std::string location; // program_line's "file:line"
  std::string verdict;  // "over-strong"
  std::string note;     // why, and what to do
};

// Written as it is made: the file holds every op, far more than the replay keeps in memory.
void write_perfetto_trace(const RecordedReplay& run, const std::vector<Finding>& findings,
                          std::ostream& out, const std::vector<PerfettoSiteMark>& marks = {});

} // namespace streamrace
