// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the analysis gave up on: a construct it approximates, a call or a loop past one of its
// limits. Each is announced where it happened and counted (streamrace-check --stats), so that
// silence is never taken for a verdict on code the analysis did not really follow.
#pragma once

#include "clang/Basic/SourceLocation.h"

#include <array>
#include <string>

namespace streamrace::analyzer {

enum class RemarkKind {
  CallTooDeep,     // a call past the depth calls are followed to, into stream work
  RecursiveCall,   // a recursive call into stream work
  LoopUnsettled,   // a loop whose states did not settle within the passes allowed
  NoFlowGraph,     // a function Clang could not build a control-flow graph for
  OpenMPConstruct, // an OpenMP directive analysed as if its body ran once, where it stands
};

inline constexpr std::array<RemarkKind, 5> kRemarkKinds{
    RemarkKind::CallTooDeep, RemarkKind::RecursiveCall, RemarkKind::LoopUnsettled,
    RemarkKind::NoFlowGraph, RemarkKind::OpenMPConstruct};

// The kind as JSON and SARIF name it: "call-too-deep".
const char* remarkKindId(RemarkKind kind);
// How --stats counts a kind: "calls past the depth limit".
const char* remarkKindCounted(RemarkKind kind);

struct Remark {
  RemarkKind kind;
  clang::SourceLocation location;
  std::string message;
};

} // namespace streamrace::analyzer
