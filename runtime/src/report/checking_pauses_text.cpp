// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/checking_pauses_text.h"

#include <cstdio>
#include <map>

namespace streamrace {

std::string checking_pauses_text(std::span<const CheckingPause> pauses) {
  struct Totals {
    std::size_t windows = 0;
    std::uint64_t duration_ns = 0;
    std::uint64_t unchecked_accesses = 0;
    bool last_open = false;
  };
  std::map<RankId, Totals> by_rank;
  for (const CheckingPause& pause : pauses) {
    Totals& totals = by_rank[pause.rank];
    ++totals.windows;
    totals.duration_ns += pause.end_ns - pause.begin_ns;
    totals.unchecked_accesses += pause.unchecked_accesses;
    totals.last_open = !pause.resumed;
  }
  std::string text;
  for (const auto& [rank, totals] : by_rank) {
    char line[512];
    std::snprintf(line, sizeof line,
                  "streamrace: warning: rank %u: access checking paused %zu time%s for %.1f ms "
                  "in all%s, the tracer behind the program (block_on_full=1 makes the program "
                  "wait for it instead): %llu accesses went unchecked, and races they took part "
                  "in may be missed\n",
                  rank, totals.windows, totals.windows == 1 ? "" : "s",
                  static_cast<double>(totals.duration_ns) / 1e6,
                  totals.last_open ? " (the last until the trace ends)" : "",
                  static_cast<unsigned long long>(totals.unchecked_accesses));
    text += line;
  }
  return text;
}

} // namespace streamrace
