// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Addresses to function, file and line through llvm-symbolizer (or the addr2line-compatible
// program of the `symbolizer` setting), run as a child process once per object file when a
// report is made.
#pragma once

#include "streamrace/engine/symbols.h"

#include <cstdint>
#include <string>
#include <vector>

namespace streamrace {

// One frame per address; frames the symbolizer cannot name keep an empty function and file.
// `addresses` are in the object file's own address space. `symbolizer` is the program to run,
// or empty for llvm-symbolizer-22, else llvm-symbolizer. Returns an empty vector when no
// symbolizer could be run.
std::vector<StackFrame> symbolize(const std::string& object_file,
                                  const std::vector<std::uint64_t>& addresses,
                                  const std::string& symbolizer);

} // namespace streamrace
