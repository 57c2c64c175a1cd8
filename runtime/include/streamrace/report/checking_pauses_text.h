// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a report says about windows in which the tracer fell behind and accesses went unchecked
// (the tracer's block_on_full=0): per rank, how many windows, for how long, how many accesses.
#pragma once

#include "streamrace/engine/engine.h"

#include <span>
#include <string>

namespace streamrace {

// One warning line per rank that had a pause; empty when checking never paused.
std::string checking_pauses_text(std::span<const CheckingPause> pauses);

} // namespace streamrace
