// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Settling: the report of a job too wide for one engine with clocks as wide as the job
// (docs/scaling.md, "What the merge does"). Every process is first replayed alone, on every core,
// without cross-rank ordering: it orders less than the whole job, so what it finds is a superset
// of what the whole job's replay finds in it. Then one pass over every file checks the accesses of
// one process per finding (its representative), with clocks projected on that process's actors:
// exact for it, and a few components wide. A finding the representative keeps is reported with
// every process that found it alone; one the job orders in the representative sends its other
// processes to a second pass, each settled itself.
#pragma once

#include "streamrace/replay/replay.h"

#include <string>
#include <vector>

namespace streamrace {

// What `streamrace report` and `run` replay: the whole job through one engine, or, from
// `settings.report.settle_from` processes on, settled.
Replay replay_for_report(const std::vector<std::string>& paths, const Settings& settings);

// Settles the trace set `paths` names whatever its size.
Replay settle_traces(const std::vector<std::string>& paths, const Settings& settings);

} // namespace streamrace
