// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The flow-sensitive checks over host code: one entry point that both front ends call.
#pragma once

#include "streamrace/analyzer/external_definitions.h"
#include "streamrace/analyzer/finding.h"
#include "streamrace/analyzer/remark.h"
#include "streamrace/analyzer/user_model.h"

#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
} // namespace clang

namespace streamrace::analyzer {

struct AnalysisOptions {
  const UserModel* userModel = nullptr;
  // Where bodies of functions defined in other translation units come from; none: such calls
  // are external.
  ExternalDefinitions* externalDefinitions = nullptr;
  // Advise on host waits stronger than what they order (sync_advice.h): each is analysed again
  // without it, so the cost grows with the waits that complete device work.
  bool adviseSyncs = false;
  // A call the analysis takes as not made: how that advice asks what a wait orders.
  const clang::CallExpr* removedCall = nullptr;
};

struct AnalysisResult {
  // In source order, each reported once even when reached through several instantiations.
  std::vector<Finding> findings;
  // What the analysis gave up on, in source order.
  std::vector<Remark> remarks;
  // With AnalysisOptions::adviseSyncs, the host waits an event edge could replace, in source
  // order (note level: no finding, the exit status does not count them).
  std::vector<Finding> advice;
  unsigned functionsAnalyzed = 0;
};

// The analysis of every host function defined in the main file of the translation unit.
AnalysisResult analyzeTranslationUnit(clang::ASTContext& context, const AnalysisOptions& options);

} // namespace streamrace::analyzer
