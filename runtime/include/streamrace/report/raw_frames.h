// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Call-site frames not yet symbolized: the tracer names a frame by its object file's path and
// the offset in it ("/path/libfoo.so+0x1a2b") until a report needs function, file and line.
// A process that exits normally symbolizes its own sites; one that crashed, was killed or was
// interrupted leaves raw frames in its trace, and the report symbolizes them from the object
// files, when they are still where they were.
#pragma once

#include "streamrace/engine/symbols.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamrace {

struct RawFrame {
  std::string object_file;
  std::uint64_t offset = 0; // in the object file's own address space
};

StackFrame raw_frame(std::string_view object_file, std::uint64_t offset);
// The object file and offset a raw frame names; nothing for a symbolized frame.
std::optional<RawFrame> parse_raw_frame(const StackFrame& frame);

// Symbolizes the raw frames of `sites` (one symbolizer run per object file, named by its
// absolute path: a relative one may name another file by now) and trims what symbolizing
// shows is not the program's own code: the C library's start-up frames past `main`, and the
// CUDA toolkit's inline wrappers and launch stub before the program's call. Frames the
// symbolizer cannot name stay raw.
void symbolize_sites(std::vector<CallSite>& sites);
// The same for those of `sites` in `symbols` that hold raw frames. (A trace of a process that
// exited normally defines its sites again, symbolized: their raw forms are in the table too,
// but no event names them.)
void symbolize_raw_frames(SymbolTable& symbols, const std::vector<CallSiteId>& sites);

} // namespace streamrace
