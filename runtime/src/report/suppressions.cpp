// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/suppressions.h"

#include "streamrace/report/finding_names.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace streamrace {

namespace {

constexpr std::string_view kTypes[] = {
    "race",        "use_after_free", "use_before_alloc", "unrecorded_event", "collective",
    "called_from", "stream"};

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

const char* type_of(FindingKind kind) {
  switch (kind) {
  case FindingKind::RaceWriteWrite:
  case FindingKind::RaceWriteRead:
  case FindingKind::RaceReadWrite:
    return "race";
  case FindingKind::UseAfterFree:
  case FindingKind::BlockFreedInUse:
    return "use_after_free";
  case FindingKind::UseBeforeAlloc:
    return "use_before_alloc";
  case FindingKind::UnrecordedEventWait:
    return "unrecorded_event";
  case FindingKind::CollectiveMismatch:
  case FindingKind::CollectiveCountMismatch:
    return "collective";
  }
  return "";
}

// The call sites a finding involves.
std::vector<CallSiteId> sites_of(const Finding& finding) {
  if (finding.collective) return {finding.collective->first.site, finding.collective->second.site};
  return {finding.first.access.site, finding.second.access.site};
}

bool frames_match(const std::string& pattern, const CallSite& site, std::size_t first_frame) {
  for (std::size_t i = first_frame; i < site.frames.size(); ++i)
    if (glob_match(pattern, site.frames[i].function) || glob_match(pattern, site.frames[i].file))
      return true;
  return false;
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
    bool known = false;
    for (std::string_view t : kTypes)
      known |= t == type;
    const std::string where = std::string(origin) + ":" + std::to_string(line_number);
    if (colon == std::string_view::npos || !known)
      throw std::invalid_argument(where + ": '" + std::string(line) +
                                  "' is not a suppression (expected race:, use_after_free:, "
                                  "use_before_alloc:, unrecorded_event:, collective:, "
                                  "called_from: or stream: followed by a pattern)");
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
  const std::string type = type_of(finding.kind);
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
        if (const CallSite* site = symbols.call_site(id))
          match |= glob_match(rule.pattern, site->api) || frames_match(rule.pattern, *site, 0);
      }
    }
    if (match) {
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
    if (rule.hits)
      line += " " + std::to_string(rule.hits) + " " + rule.type + ":" + rule.pattern + ";";
  return line + "\n";
}

} // namespace streamrace
