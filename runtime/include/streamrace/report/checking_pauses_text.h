// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a report says about windows in which the tracer fell behind and accesses went unchecked
// (the tracer's block_on_full=0): per rank, how many windows, for how long, how many accesses,
// and how long the program's calls waited for the tracer. The text report prints it as warning
// lines, SARIF as notifications (the JSON report lists the windows themselves).
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/report/rank_names.h"

#include <span>
#include <string>
#include <vector>

namespace streamrace {

// A rank's windows, summed.
struct RankCheckingPauses {
  RankId rank = 0;
  std::size_t windows = 0;
  std::uint64_t duration_ns = 0;
  std::uint64_t unchecked_accesses = 0;
  std::uint64_t caller_wait_ns = 0;
  bool last_open = false; // the trace ended inside its last window
};

// By rank, in rank order; empty when checking never paused.
std::vector<RankCheckingPauses> checking_pauses_by_rank(std::span<const CheckingPause> pauses);

// "rank 0: access checking paused 1 time for 81.3 ms in all, ...": what went unchecked and why,
// without a prefix or a line end. The rank is named as findings name it ("device 1").
std::string checking_pauses_sentence(const RankCheckingPauses& rank, const RankNames& names);

// One warning line per rank of `engine` that had a pause; empty when checking never paused.
std::string checking_pauses_text(const Engine& engine);

} // namespace streamrace
