// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How reports name ranks. A rank is what the engine orders by, but a process that drives several
// devices gets one rank per device, numbered in the order it first used them, so the numbers are
// not the user's: such ranks are named by the CUDA ordinal the program used, "device 1" in a job
// of one process, "rank 2 device 1" (the process's own rank, then the device) in a job of several.
// A process that drives one device, and every rank of a trace that does not say its device
// (format version 6 and older), keeps its number: "rank 3".
#pragma once

#include "streamrace/engine/engine.h"

#include <map>
#include <span>
#include <string>

namespace streamrace {

// "rank 3", "ranks 0,1", "ranks 0-3,5,7-9": sorted ranks, each run of three or more
// consecutive ones as a range, so that a finding on a thousand ranks stays one short line.
std::string ranks_text(std::span<const RankId> ranks);

class RankNames {
public:
  explicit RankNames(const std::map<RankId, RankIdentity>& identities);
  explicit RankNames(const Engine& engine) : RankNames(engine.rank_identities()) {}

  // "rank 3", "device 1" or "rank 2 device 1".
  std::string name(RankId rank) const;
  // Sorted ranks: "ranks 0-3" or "devices 0,1" when all are named alike, else each name in turn.
  std::string names(std::span<const RankId> ranks) const;

private:
  struct ProcessDevice {
    RankId process_rank = 0;
    DeviceId device = 0;
  };
  // Only the ranks named by their device: those of processes that drive several.
  std::map<RankId, ProcessDevice> by_device_;
  bool one_process_ = true;
};

} // namespace streamrace
