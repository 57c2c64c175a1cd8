// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A replay as a Chrome trace-event JSON file (the JSON Object Format, "traceEvents"), which
// ui.perfetto.dev and chrome://tracing open: a process per rank, a track per stream and per host
// thread, ops as slices, the engine's happens-before edges as flow arrows, findings marked.
#pragma once

#include "streamrace/report/recorded_replay.h"

#include <string>
#include <vector>

namespace streamrace {

std::string perfetto_trace(const RecordedReplay& run, const std::vector<Finding>& findings);

} // namespace streamrace
