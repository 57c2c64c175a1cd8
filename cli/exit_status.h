// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The statuses `run` and `report` end with when the replay, not the command, decides: a finding
// first, then access checks the tracer skipped while it was behind (block_on_full=0), so that a
// CI job sees a run that checked less than the program did even when nothing was found.
#pragma once

#include "streamrace/engine/engine.h"

namespace streamrace::cli {

inline constexpr int kFindingsStatus = 66;
inline constexpr int kUncheckedStatus = 67;

inline int replay_status(bool findings_remain, const Engine& engine,
                         int findings_status = kFindingsStatus) {
  if (findings_remain) return findings_status;
  return engine.checking_pauses().empty() ? 0 : kUncheckedStatus;
}

} // namespace streamrace::cli
