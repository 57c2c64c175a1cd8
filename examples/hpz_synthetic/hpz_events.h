// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ZeRO-3/hpZ training step of reference_hpz/README.md as an engine event sequence, for four
// ranks on two nodes by default (any number of nodes of any width on demand: the collectives of
// a job of thousands of ranks, WORLD and one intra-node communicator per node): the race (the
// release copy on stream C fills a secondary shard that the backward all-gather on stream A reads,
// with nothing ordering them) and its two fixes.
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/engine/symbols.h"

#include <functional>
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

using EventSink = std::function<void(Event)>;

// Events of every rank, interleaved phase by phase the way a merged trace would be, handed to
// `sink` as they are made, so that a job of thousands of ranks never sits in memory. Names and
// call sites are interned into `symbols` as they are first used. Throws std::invalid_argument
// for an empty shape.
void hpz_events(HpzMode mode, SymbolTable& symbols, const HpzShape& shape, const EventSink& sink);
// The same, kept.
std::vector<Event> hpz_events(HpzMode mode, SymbolTable& symbols, const HpzShape& shape = {});

} // namespace streamrace::examples
