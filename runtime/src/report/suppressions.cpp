// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/suppressions.h"

#include "streamrace/report/finding_names.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace streamrace {

namespace {

// What a suppression may match besides a kind of finding (finding_kinds.inc names those).
constexpr std::string_view kPlaceTypes[] = {"called_from", "stream"};
// Notes on call sites that are no findings: the synchronization advice's verdicts.
constexpr std::string_view kNoteTypes[] = {"sync"};

// Every word a suppression may start with, each once, in the order the error lists them.
std::vector<std::string_view> suppression_types() {
  std::vector<std::string_view> types;
  for (const FindingKindInfo& kind : kFindingKinds)
    if (std::ranges::find(types, kind.suppression_type) == types.end())
      types.push_back(kind.suppression_type);
  types.insert(types.end(), std::begin(kPlaceTypes), std::end(kPlaceTypes));
  types.insert(types.end(), std::begin(kNoteTypes), std::end(kNoteTypes));
  return types;
}

// "race:, use_after_free:, ... or stream:"
std::string suppression_types_text(const std::vector<std::string_view>& types) {
  std::string text;
  for (std::size_t i = 0; i < types.size(); ++i)
    text += (i == 0 ? "" : i + 1 == types.size() ? " or " : ", ") + std::string(types[i]) + ":";
  return text;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

// The call sites a finding involves.
std::vector<CallSiteId> sites_of(const Finding& finding) {
  if (finding.collective) return {finding.collective->first.site, finding.collective->second.site};
  return {finding.first.access.site, finding.second.access.site};
}

bool frames_match(const std::string& pattern, const CallSite& site, std::size_t first_frame) {
  for (std::size_t i = first_frame; i < site.frames.size(); ++i) {
    const StackFrame& frame = site.frames[i];
    if (glob_match(pattern, frame.function) || glob_match(pattern, frame.file) ||
        (frame.line && glob_match(pattern, frame.file + ":" + std::to_string(frame.line))))
      return true;
  }
  return false;
}

bool names_call(const std::string& pattern, const CallSite& site) {
  return glob_match(pattern, site.api) || frames_match(pattern, site, 0);
}

} // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative matching with backtracking to the last '*'.
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

Suppressions Suppressions::parse(std::string_view text, std::string_view origin) {
  Suppressions result;
  const std::vector<std::string_view> types = suppression_types();
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    const std::size_t colon = line.find(':');
    const std::string_view type =
        colon == std::string_view::npos ? line : trim(line.substr(0, colon));
    const std::string where = std::string(origin) + ":" + std::to_string(line_number);
    if (colon == std::string_view::npos || std::ranges::find(types, type) == types.end())
      throw std::invalid_argument(where + ": '" + std::string(line) +
                                  "' is not a suppression (expected " +
                                  suppression_types_text(types) + " followed by a pattern)");
    const std::string_view pattern = trim(line.substr(colon + 1));
    if (pattern.empty()) throw std::invalid_argument(where + ": suppression has an empty pattern");
    result.rules_.push_back(Rule{std::string(type), std::string(pattern), 0});
  }
  return result;
}

Suppressions Suppressions::load(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read suppressions file '" + path + "'");
  std::stringstream text;
  text << file.rdbuf();
  return parse(text.str(), path);
}

bool Suppressions::suppresses(const Finding& finding, const Engine& engine,
                              const SymbolTable& symbols) {
  const std::string type = finding_kind_info(finding.kind).suppression_type;
  const std::vector<CallSiteId> sites = sites_of(finding);
  for (Rule& rule : rules_) {
    bool match = false;
    if (rule.type == "stream") {
      if (!finding.collective)
        for (const AccessSide* side : {&finding.first, &finding.second})
          match |= glob_match("stream '" + rule.pattern + "'",
                              actor_text(engine, symbols, side->access.actor));
    } else if (rule.type == "called_from") {
      for (CallSiteId id : sites)
        if (const CallSite* site = symbols.call_site(id))
          match |= frames_match(rule.pattern, *site, 1);
    } else if (rule.type == type) {
      for (CallSiteId id : sites) {
        if (const CallSite* site = symbols.call_site(id)) match |= names_call(rule.pattern, *site);
      }
    }
    if (match) {
      ++rule.hits;
      return true;
    }
  }
  return false;
}

bool Suppressions::suppresses_call(std::string_view type, const CallSite& site) {
  for (Rule& rule : rules_) {
    if (rule.type == type && names_call(rule.pattern, site)) {
      ++rule.hits;
      return true;
    }
  }
  return false;
}

ReportedFindings unsuppressed_findings(std::span<const Finding> findings, const Engine& engine,
                                       const SymbolTable& symbols,
                                       std::optional<Suppressions>& suppressions) {
  ReportedFindings reported;
  for (const Finding& finding : findings) {
    if (suppressions && suppressions->suppresses(finding, engine, symbols))
      ++reported.suppressed;
    else
      reported.findings.push_back(finding);
  }
  return reported;
}

std::string suppressed_line(const ReportedFindings& reported,
                            const std::optional<Suppressions>& suppressions) {
  if (reported.suppressed == 0 || !suppressions) return {};
  std::string line = "streamrace: " + std::to_string(reported.suppressed) + " finding" +
                     (reported.suppressed == 1 ? "" : "s") + " suppressed:";
  for (const Suppressions::Rule& rule : suppressions->rules())
    if (rule.hits && std::ranges::find(kNoteTypes, rule.type) == std::end(kNoteTypes))
      line += " " + std::to_string(rule.hits) + " " + rule.type + ":" + rule.pattern + ";";
  return line + "\n";
}

} // namespace streamrace
