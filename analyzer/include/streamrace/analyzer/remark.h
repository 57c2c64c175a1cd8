// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the analysis gave up on: a construct it approximates, a call or a loop past one of its
// limits. Each is announced where it happened and counted (streamrace-check --stats), so that
// silence is never taken for a verdict on code the analysis did not really follow.
#pragma once

#include "clang/Basic/SourceLocation.h"

#include <array>
#include <cstddef>
#include <string>

namespace streamrace::analyzer {

enum class RemarkKind {
#define STREAMRACE_REMARK_KIND(kind, ...) kind,
#include "streamrace/analyzer/remark_kinds.inc"
};

// One line of remark_kinds.inc.
struct RemarkKindInfo {
  RemarkKind kind;
  const char* id;      // "call-too-deep": the kind as text, JSON and SARIF name it
  const char* counted; // "calls past the depth limit": how --stats counts it
};

// Indexed by RemarkKind.
inline constexpr std::array kRemarkKinds{
#define STREAMRACE_REMARK_KIND(kind, ...) RemarkKindInfo{RemarkKind::kind, __VA_ARGS__},
#include "streamrace/analyzer/remark_kinds.inc"
};

constexpr const RemarkKindInfo& remarkKindInfo(RemarkKind kind) {
  return kRemarkKinds[static_cast<std::size_t>(kind)];
}

struct Remark {
  RemarkKind kind;
  clang::SourceLocation location;
  std::string message;
};

} // namespace streamrace::analyzer
