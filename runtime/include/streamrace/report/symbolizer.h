// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Addresses to function, file and line through llvm-symbolizer (or addr2line-compatible
// STREAMRACE_SYMBOLIZER), run as a child process once per object file when a report is made.
#pragma once

#include "streamrace/engine/symbols.h"

#include <cstdint>
#include <string>
#include <vector>

namespace streamrace {

// One frame per address; frames the symbolizer cannot name keep an empty function and file.
// `addresses` are in the object file's own address space. Returns an empty vector when no
// symbolizer could be run.
std::vector<StackFrame> symbolize(const std::string& object_file,
                                  const std::vector<std::uint64_t>& addresses);

} // namespace streamrace
