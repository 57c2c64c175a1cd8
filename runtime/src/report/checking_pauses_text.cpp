// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/checking_pauses_text.h"

#include <cstdio>
#include <map>

namespace streamrace {

namespace {

double milliseconds(std::uint64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

} // namespace

std::vector<RankCheckingPauses> checking_pauses_by_rank(std::span<const CheckingPause> pauses) {
  std::map<RankId, RankCheckingPauses> by_rank;
  for (const CheckingPause& pause : pauses) {
    RankCheckingPauses& totals = by_rank[pause.rank];
    totals.rank = pause.rank;
    ++totals.windows;
    totals.duration_ns += pause.end_ns - pause.begin_ns;
    totals.unchecked_accesses += pause.unchecked_accesses;
    totals.caller_wait_ns += pause.caller_wait_ns;
    totals.last_open = !pause.resumed;
  }
  std::vector<RankCheckingPauses> ranks;
  ranks.reserve(by_rank.size());
  for (const auto& [rank, totals] : by_rank)
    ranks.push_back(totals);
  return ranks;
}

std::string checking_pauses_sentence(const RankCheckingPauses& rank, const RankNames& names) {
  char text[512];
  std::snprintf(text, sizeof text,
                "%s: access checking paused %zu time%s for %.1f ms in all%s, the tracer "
                "behind the program (block_on_full=1 makes the program wait for it instead): %llu "
                "accesses went unchecked, and races they took part in may be missed",
                names.name(rank.rank).c_str(), rank.windows, rank.windows == 1 ? "" : "s",
                milliseconds(rank.duration_ns),
                rank.last_open ? " (the last until the trace ends)" : "",
                static_cast<unsigned long long>(rank.unchecked_accesses));
  std::string sentence = text;
  if (rank.caller_wait_ns != 0) {
    std::snprintf(text, sizeof text,
                  "; the paused calls filled the overflow (overflow_capacity), and the program's "
                  "calls waited %.1f ms in all for the tracer",
                  milliseconds(rank.caller_wait_ns));
    sentence += text;
  }
  return sentence;
}

std::string checking_pauses_text(const Engine& engine) {
  const RankNames names(engine);
  std::string text;
  for (const RankCheckingPauses& rank : checking_pauses_by_rank(engine.checking_pauses()))
    text += "streamrace: warning: " + checking_pauses_sentence(rank, names) + "\n";
  return text;
}

} // namespace streamrace
