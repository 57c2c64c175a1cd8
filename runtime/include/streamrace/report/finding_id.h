// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Names for findings that outlive one run: a short id ("SR-1a2b3c4d") hashed from the kind's
// identifier (finding_kind_id) and the contents of its call sites (API, functions, files,
// lines), never from table indices or addresses, so the same bug in the same code gets the same
// id in every run, on every rank, in every report format.
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/engine/symbols.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace streamrace {

// 64-bit FNV-1a over the finding's kind and call sites (SARIF partialFingerprints).
std::uint64_t finding_fingerprint(const Finding& finding, const Engine& engine,
                                  const SymbolTable& symbols);
// "SR-" and the fingerprint's high 32 bits in hex.
std::string finding_id(const Finding& finding, const Engine& engine, const SymbolTable& symbols);

// The finding named by its id ("SR-1a2b3c4d", as a report prints it, brackets and case as they
// come) or its number in the report (1, 2, ...); throws std::runtime_error listing the ids there
// are when none matches.
const Finding& finding_by_id(std::span<const Finding> findings, const Engine& engine,
                             const SymbolTable& symbols, std::string_view id);

} // namespace streamrace
