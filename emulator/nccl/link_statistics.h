// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Process-wide byte counters of the link model. When STREAMRACE_EMU_NCCL_STATS names a file, the
// process appends one JSON object (one line) to it at exit, so every rank of a multi-process run
// adds its own line to the same file:
//   {"pid":123,"rank":0,"intra_node_bytes":N,"inter_node_bytes":M,
//    "operations":{"ncclAllGather":{"calls":C,"intra_node_bytes":N,"inter_node_bytes":M},...}}
// "rank" is the RANK environment variable (-1 when unset). Each rank counts only what it sends,
// so summing the lines of all ranks gives the traffic of the whole run.
#pragma once

#include "link_model.h"

#include <string>

namespace streamrace::emu::nccl {

inline constexpr const char* kPointToPointName = "ncclSend";

// operationName is a collectiveInfo().function or kPointToPointName.
void recordTraffic(const char* operationName, const LinkTraffic& traffic);
std::string statisticsJson();
// Appends statisticsJson() to $STREAMRACE_EMU_NCCL_STATS. Runs at exit, and on the fatal-error
// path before the process ends; repeated calls write once.
void writeStatisticsFile();

} // namespace streamrace::emu::nccl
