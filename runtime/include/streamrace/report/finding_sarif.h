// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Findings as a SARIF 2.1.0 log (OASIS), the format GitHub code scanning and IDEs read: one
// result per deduplicated finding, one rule per finding kind.
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/engine/symbols.h"

#include <cstdint>
#include <string>
#include <vector>

namespace streamrace {

struct SarifOptions {
  // Files under this directory are named relative to it, through the uriBaseId %SRCROOT%
  // (GitHub resolves that against the repository). Empty: absolute paths become file:// URIs.
  std::string source_root;
};

// Results of level "note" beside the findings, each under a rule of its own (the
// synchronization advice's verdicts on call sites).
struct SarifNotes {
  struct Rule {
    std::string id;   // "streamrace-sync-over-strong"
    std::string name; // "SyncOverStrong"
    std::string text; // one line
    std::string help;
  };
  struct Note {
    std::size_t rule = 0; // index into rules
    std::string file;     // "" when the call has no known place
    std::uint32_t line = 0;
    std::string function;
    std::string message;
    std::string fingerprint;     // stable across runs: what the result is about
    std::string properties_json; // the members of the result's property bag, "" for none
  };
  std::vector<Rule> rules;
  std::vector<Note> notes;
};

std::string findings_sarif(const std::vector<Finding>& findings, const Engine& engine,
                           const SymbolTable& symbols, const SarifOptions& options,
                           const SarifNotes& notes = {});

} // namespace streamrace
