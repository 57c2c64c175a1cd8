// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ZeRO-3/hpZ training step of reference_hpz/README.md as an engine event sequence, for four
// ranks on two nodes: the race (the release copy on stream C fills a secondary shard that the
// backward all-gather on stream A reads, with nothing ordering them) and its two fixes.
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/engine/symbols.h"

#include <string_view>
#include <vector>

namespace streamrace::examples {

enum class HpzMode { Zero3, Buggy, FixHostSync, FixEvent };

HpzMode parse_hpz_mode(std::string_view text); // throws std::invalid_argument
std::string_view hpz_mode_name(HpzMode mode);

struct HpzShape {
  int nodes = 2;
  int gpus_per_node = 2;
  int layers = 3;
  int steps = 2;
};

// Events of every rank, interleaved phase by phase the way a merged trace would be.
std::vector<Event> hpz_events(HpzMode mode, SymbolTable& symbols, const HpzShape& shape = {});

} // namespace streamrace::examples
