// A finding as plain text, sanitizer style: kind, both accesses, the memory, the fix.
#pragma once

#include "streamrace/runtime/engine.h"
#include "streamrace/runtime/symbols.h"

#include <string>

namespace streamrace {

std::string describe_finding(const Finding& finding, const Engine& engine,
                             const SymbolTable& symbols);

} // namespace streamrace
