// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "remark_sink.h"

#include "clang/Basic/SourceManager.h"

#include <algorithm>

namespace streamrace::analyzer {

const char* remarkKindId(RemarkKind kind) {
  switch (kind) {
  case RemarkKind::CallTooDeep:
    return "call-too-deep";
  case RemarkKind::RecursiveCall:
    return "recursive-call";
  case RemarkKind::LoopUnsettled:
    return "loop-unsettled";
  case RemarkKind::NoFlowGraph:
    return "no-flow-graph";
  case RemarkKind::OpenMPConstruct:
    return "openmp-construct";
  }
  return "other";
}

const char* remarkKindCounted(RemarkKind kind) {
  switch (kind) {
  case RemarkKind::CallTooDeep:
    return "calls past the depth limit";
  case RemarkKind::RecursiveCall:
    return "recursive calls";
  case RemarkKind::LoopUnsettled:
    return "loops cut at the pass limit";
  case RemarkKind::NoFlowGraph:
    return "functions without a control-flow graph";
  case RemarkKind::OpenMPConstruct:
    return "OpenMP constructs run once in place";
  }
  return "other";
}

void RemarkSink::remark(RemarkKind kind, clang::SourceLocation location, std::string message) {
  if (!announced_.emplace(kind, location.getRawEncoding()).second) return;
  remarks_.push_back({kind, location, std::move(message)});
}

std::vector<Remark> RemarkSink::takeRemarks() {
  std::stable_sort(remarks_.begin(), remarks_.end(), [&](const Remark& a, const Remark& b) {
    return sources_.isBeforeInTranslationUnit(a.location, b.location);
  });
  announced_.clear();
  return std::move(remarks_);
}

} // namespace streamrace::analyzer
