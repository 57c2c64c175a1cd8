// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/finding_id.h"

#include "streamrace/report/finding_names.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <string_view>

namespace streamrace {

namespace {

class Fnv1a {
public:
  void add(std::string_view text) {
    for (char c : text)
      byte(static_cast<unsigned char>(c));
    byte(0); // "ab"+"c" and "a"+"bc" differ
  }
  void add(std::uint64_t value) { add(std::to_string(value)); }
  std::uint64_t value() const { return hash_; }

private:
  void byte(unsigned char c) { hash_ = (hash_ ^ c) * 0x100000001B3ull; }
  std::uint64_t hash_ = 0xCBF29CE484222325ull;
};

void add_site(Fnv1a& hash, CallSiteId id, const SymbolTable& symbols) {
  const CallSite* site = symbols.call_site(id);
  if (!site) {
    hash.add("?");
    return;
  }
  hash.add(site->api);
  for (const StackFrame& frame : site->frames) {
    hash.add(frame.function);
    hash.add(frame.file);
    hash.add(frame.line);
  }
}

void add_side(Fnv1a& hash, const AccessSide& side, const Engine& engine,
              const SymbolTable& symbols) {
  const AccessRecord& access = side.access;
  hash.add(op_name(access, symbols));
  const CallSite* site = symbols.call_site(access.site);
  if (site && !site->frames.empty()) {
    add_site(hash, access.site, symbols);
  } else {
    // No stack: the stream (its NVTX name, else its kind and handle) is what tells it apart.
    hash.add(actor_text(engine, symbols, access.actor));
  }
}

// An id as a user may paste it from a report header: "[SR-CB0D8329]" names SR-cb0d8329.
std::string normalized_id(std::string_view id) {
  if (id.size() >= 2 && id.front() == '[' && id.back() == ']') id = id.substr(1, id.size() - 2);
  std::string lower(id);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

} // namespace

std::uint64_t finding_fingerprint(const Finding& finding, const Engine& engine,
                                  const SymbolTable& symbols) {
  Fnv1a hash;
  hash.add(finding_kind_id(finding.kind));
  if (finding.collective) {
    const CollectiveDisagreement& c = *finding.collective;
    if (finding.kind == FindingKind::CollectiveMismatch) {
      hash.add(c.sequence);
      add_site(hash, c.first.site, symbols);
      add_site(hash, c.second.site, symbols);
    } else {
      for (const auto& [rank, calls] : c.calls_per_rank) {
        hash.add(static_cast<std::uint64_t>(rank));
        hash.add(calls);
      }
    }
    return hash.value();
  }
  add_side(hash, finding.first, engine, symbols);
  add_side(hash, finding.second, engine, symbols);
  return hash.value();
}

std::string finding_id(const Finding& finding, const Engine& engine, const SymbolTable& symbols) {
  char text[16];
  std::snprintf(text, sizeof(text), "SR-%08x",
                static_cast<unsigned>(finding_fingerprint(finding, engine, symbols) >> 32));
  return text;
}

const Finding& finding_by_id(std::span<const Finding> findings, const Engine& engine,
                             const SymbolTable& symbols, std::string_view id) {
  const std::string wanted = normalized_id(id);
  std::string known;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const std::string finding = finding_id(findings[i], engine, symbols);
    if (normalized_id(finding) == wanted || std::to_string(i + 1) == wanted) return findings[i];
    known += (known.empty() ? "" : ", ") + finding;
  }
  throw std::runtime_error(
      "no finding '" + std::string(id) + "' in these traces (" +
      (known.empty() ? std::string("they have no findings") : "their findings: " + known) + ")");
}

} // namespace streamrace
