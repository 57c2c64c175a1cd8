// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `streamrace explain`: why a finding's two ops are unordered. For the second op, the latest
// point of the first op's stream that it is ordered after and the chain of happens-before edges
// that orders it there, both as the engine built them; then the edge that is missing.
#pragma once

#include "streamrace/report/recorded_replay.h"

#include <string>

namespace streamrace {

std::string explain_finding(const RecordedReplay& run, const Finding& finding);

// One step of a chain in words: "stream 'A' (rank 0) waited on event 0xe5000 recorded on ...".
std::string describe_edge(const RecordedReplay& run, const HappensBeforeGraph::Edge& edge);
// "stream 'C' (rank 0) op #35 (cudaMemcpy at hpz_step.cpp:130)"; join nodes read "after op #N".
std::string describe_node(const RecordedReplay& run, HappensBeforeGraph::NodeId node);

} // namespace streamrace
