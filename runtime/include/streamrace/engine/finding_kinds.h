// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The kinds of finding and how every report names and explains each, built from the one list
// finding_kinds.inc, so that the engine, the text, JSON and SARIF reports, finding ids and
// suppressions never disagree on a kind.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace streamrace {

enum class FindingKind : std::uint8_t {
#define STREAMRACE_FINDING_KIND(kind, ...) kind,
#include "streamrace/engine/finding_kinds.inc"
};

// One line of finding_kinds.inc (its comment says what each field is for).
struct FindingKindInfo {
  FindingKind kind;
  const char* rule_name;
  const char* name;
  const char* id;
  const char* suppression_type;
  const char* rule_text;
  const char* rule_help;
};

// Indexed by FindingKind.
inline constexpr std::array kFindingKinds{
#define STREAMRACE_FINDING_KIND(kind, ...) FindingKindInfo{FindingKind::kind, #kind, __VA_ARGS__},
#include "streamrace/engine/finding_kinds.inc"
};

constexpr const FindingKindInfo& finding_kind_info(FindingKind kind) {
  return kFindingKinds[static_cast<std::size_t>(kind)];
}
// "race (write-write)", "use-after-free", ...
constexpr const char* finding_kind_name(FindingKind kind) {
  return finding_kind_info(kind).name;
}
// "race-write-read", "use-after-free", ...: JSON kinds, finding ids and SARIF rule ids.
constexpr const char* finding_kind_id(FindingKind kind) {
  return finding_kind_info(kind).id;
}

} // namespace streamrace
