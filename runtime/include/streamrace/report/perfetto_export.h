// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A replay as a Chrome trace-event JSON file (the JSON Object Format, "traceEvents"), which
// ui.perfetto.dev and chrome://tracing open: a process per rank, a track per stream and per host
// thread, ops as slices, the engine's happens-before edges as flow arrows, findings marked.
#pragma once

#include "streamrace/report/recorded_replay.h"

#include <ostream>
#include <vector>

namespace streamrace {

// Written as it is made: the file holds every op, far more than the replay keeps in memory.
void write_perfetto_trace(const RecordedReplay& run, const std::vector<Finding>& findings,
                          std::ostream& out);

} // namespace streamrace
