// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Findings as a SARIF 2.1.0 log (OASIS), the format GitHub code scanning and IDEs read: one
// result per deduplicated finding, one rule per finding kind.
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/engine/symbols.h"

#include <string>
#include <vector>

namespace streamrace {

struct SarifOptions {
  // Files under this directory are named relative to it, through the uriBaseId %SRCROOT%
  // (GitHub resolves that against the repository). Empty: absolute paths become file:// URIs.
  std::string source_root;
};

std::string findings_sarif(const std::vector<Finding>& findings, const Engine& engine,
                           const SymbolTable& symbols, const SarifOptions& options);

} // namespace streamrace
