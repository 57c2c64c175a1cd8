// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Findings as text, in the style of sanitizer reports: a header naming the kind and ranks,
// each access with its stack, the memory, the NVTX ranges, the fix; a SUMMARY line closes.
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/engine/symbols.h"
#include "streamrace/report/rank_names.h"

#include <span>
#include <string>
#include <vector>

namespace streamrace {

std::string describe_finding(const Finding& finding, const Engine& engine,
                             const SymbolTable& symbols);

// The "To fix:" advice without its label; empty when no ordering helps.
std::string fix_text(const Finding& finding, const Engine& engine, const SymbolTable& symbols);

// "SUMMARY: streamrace: 2 findings (1 race, 1 use-after-free) on ranks 0,1" (ranks named as
// rank_names.h says)
std::string summary_line(std::span<const Finding> findings, const Engine& engine);

// The text report's findings: each as describe_finding writes it, then the SUMMARY line.
std::string findings_text(std::span<const Finding> findings, const Engine& engine,
                          const SymbolTable& symbols);

} // namespace streamrace
