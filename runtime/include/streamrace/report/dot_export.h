// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The happens-before graph around a finding, for Graphviz: the two ops and the ops near them on
// their streams, the edges the engine made between those streams, the chain that orders the
// second op after the first stream's latest point before the first op, and the missing edge
// (dashed red, labelled with the fix).
#pragma once

#include "streamrace/report/recorded_replay.h"

#include <string>

namespace streamrace {

// One `digraph` per finding; `window` ops either side of each op on its stream.
std::string finding_dot(const RecordedReplay& run, const Finding& finding, Epoch window = 3);

} // namespace streamrace
