// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How exports and `explain` name one trace event: the API the program called and where. A
// recorded replay keeps each event only as the summary these names need, not the event (a
// kernel's list of accesses alone can outweigh the rest many times).
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/engine/symbols.h"

#include <cstdint>
#include <string>

namespace streamrace {

struct EventSummary {
  EventHeader header;
  NameId payload_api = 0;  // the call the payload stands for, interned
  bool names_only = false; // NVTX ranges and names: they touch nothing and order nothing
  std::uint64_t bytes = 0; // what the op moves or touches
};

// `symbols` interns the payload's call.
EventSummary summarize(const Event& event, SymbolTable& symbols);

// The call site's API ("cudaMemcpyAsync"), else the call the payload stands for. The site is
// looked up when the name is asked for: a crashed process's sites are symbolized after replay.
std::string event_api(const EventSummary& event, const SymbolTable& symbols);
// "release_to_secondary hpz_step.cpp:64" (the first frame with a file), or "" when unknown.
std::string event_location(const EventSummary& event, const SymbolTable& symbols);
// "hpz_step.cpp:64", or "" when unknown.
std::string event_file_line(const EventSummary& event, const SymbolTable& symbols);

// Where the program made the call: in a Python program, its innermost Python frame outside
// PyTorch's own modules (a `wait_stream` is traced inside torch/cuda/streams.py, under native
// frames of the interpreter and of libtorch); else the first frame with a file; null when none
// has one.
const StackFrame* program_frame(const EventSummary& event, const SymbolTable& symbols);
// The program frame as "file:line", or "" when unknown.
std::string program_line(const EventSummary& event, const SymbolTable& symbols);

} // namespace streamrace
