// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Findings as JSON, schema "streamrace-report" version 1 (docs/report-formats.md).
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/engine/symbols.h"

#include <string>
#include <vector>

namespace streamrace {

// A trace the report was built from, and whether it was read to its end.
struct TraceSource {
  std::string path;
  std::uint64_t records = 0;
  std::string problem;
};

// `synchronization`, when given, is the value of the report's "synchronization" member (a JSON
// object, sync_advice.h), which it then ends with.
std::string findings_json(const std::vector<Finding>& findings, const Engine& engine,
                          const SymbolTable& symbols, const std::vector<TraceSource>& sources,
                          const std::string& synchronization = {});

} // namespace streamrace
