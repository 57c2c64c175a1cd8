// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How exports and `explain` name one trace event: the API the program called and where.
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/engine/symbols.h"

#include <cstdint>
#include <string>

namespace streamrace {

// The call site's API ("cudaMemcpyAsync"), else the call the payload stands for.
std::string event_api(const Event& event, const SymbolTable& symbols);
// "release_to_secondary hpz_step.cpp:64" (the first frame with a file), or "" when unknown.
std::string event_location(const Event& event, const SymbolTable& symbols);
// "hpz_step.cpp:64", or "" when unknown.
std::string event_file_line(const Event& event, const SymbolTable& symbols);
// Bytes the op moves or touches (copies, sets, kernels' declared accesses, NCCL buffers).
std::uint64_t event_bytes(const Event& event);

} // namespace streamrace
