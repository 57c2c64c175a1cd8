// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Findings as text, in the style of sanitizer reports: a header naming the kind and ranks,
// each access with its stack, the memory, the NVTX ranges, the fix; a SUMMARY line closes.
#pragma once

#include "streamrace/runtime/engine.h"
#include "streamrace/runtime/symbols.h"

#include <string>
#include <vector>

namespace streamrace {

std::string describe_finding(const Finding& finding, const Engine& engine,
                             const SymbolTable& symbols);

// The "To fix:" advice without its label; empty when no ordering helps.
std::string fix_text(const Finding& finding, const Engine& engine, const SymbolTable& symbols);

// "SUMMARY: streamrace: 2 findings (1 race, 1 use-after-free) on ranks 0,1"
std::string summary_line(const std::vector<Finding>& findings);

// Names a stream (or host thread) as reports do: its NVTX name, else its kind and handle.
std::string actor_text(const Engine& engine, const SymbolTable& symbols, ActorId id);
// The API of an access: its call site's entry point, else a description of its op.
std::string op_name(const AccessRecord& access, const SymbolTable& symbols);
// "0x1a2b": addresses, handles and communicators as every report format writes them.
std::string hex_text(std::uint64_t value);

} // namespace streamrace
