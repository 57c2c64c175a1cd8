// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Suppressions in the ThreadSanitizer manner: a file of `type:pattern` lines. A finding is
// suppressed when a line of its type matches it; `*` in a pattern matches any run of
// characters, and a pattern matches a frame's function, file or "file:line", an API name, or a
// stream name.
//
//   race:<pattern>             races (any kind) with the pattern in either access's stack or API
//   use_after_free:<pattern>   use-after-free findings, likewise
//   use_before_alloc:<pattern>
//   unrecorded_event:<pattern> races left by a wait on a never-recorded event
//   collective:<pattern>       collective mismatches, matched against the calls' stacks
//   called_from:<pattern>      any finding whose stacks have the pattern below their top frame
//   stream:<pattern>           any finding that involves a stream of that name
//   sync:<pattern>             the synchronization advice's verdict on a call site whose API or
//                              stack has the pattern (`report --advise=sync`)
//
// Blank lines and lines starting with '#' are ignored.
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/engine/symbols.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace streamrace {

class Suppressions {
public:
  // Throws std::invalid_argument naming the line that is not a suppression.
  static Suppressions parse(std::string_view text, std::string_view origin);
  // Reads a suppressions file; throws std::runtime_error when it cannot be read.
  static Suppressions load(const std::string& path);

  // True (and counts the hit) when some line suppresses `finding`.
  bool suppresses(const Finding& finding, const Engine& engine, const SymbolTable& symbols);
  // True (and counts the hit) when a line of `type` names the call's API or a function or file
  // of its stack: what suppresses a note on a call site rather than a finding.
  bool suppresses_call(std::string_view type, const CallSite& site);

  struct Rule {
    std::string type;
    std::string pattern;
    std::uint64_t hits = 0;
  };
  const std::vector<Rule>& rules() const { return rules_; }

private:
  std::vector<Rule> rules_;
};

// The findings a report shows: those no suppression hides (each hit counted in its rule), and
// how many were hidden.
struct ReportedFindings {
  std::vector<Finding> findings;
  std::uint64_t suppressed = 0;
};
ReportedFindings unsuppressed_findings(std::span<const Finding> findings, const Engine& engine,
                                       const SymbolTable& symbols,
                                       std::optional<Suppressions>& suppressions);
// "streamrace: N findings suppressed: <hits> <rule>; ..." with a newline, or empty when none was.
std::string suppressed_line(const ReportedFindings& reported,
                            const std::optional<Suppressions>& suppressions);

// '*' matches any run of characters; everything else matches itself.
bool glob_match(std::string_view pattern, std::string_view text);

} // namespace streamrace
