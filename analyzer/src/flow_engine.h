// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The transfer/worklist core: a worklist over clang::CFG per host function, the transfer function
// of each statement (calls through the API model, host accesses, index variables, aliases), and
// calls to functions of the translation unit analyzed in place with their parameters bound to the
// caller's values (a summary computed per call site, so wrappers are understood without models).
// It decides what is ordered and tells the checks (checks/check.h) what is not.
#pragma once

#include "checks/check.h"
#include "remark_sink.h"
#include "streamrace/analyzer/analysis.h"
#include "sync_advice.h"

#include <memory>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace streamrace::analyzer {

class FlowEngine {
public:
  // `functions`: the main file's host functions, those analysed and their callers. `project`:
  // those and the ones the project's own headers define, whose stream creations and allocations
  // into fields are facts every analysis uses (stream_storage.h, field_memory.h). What the
  // analysis gives up on goes to `remarks`.
  FlowEngine(clang::ASTContext& context, const AnalysisOptions& options,
             std::vector<std::unique_ptr<Check>> checks, RemarkSink& remarks,
             const std::vector<const clang::FunctionDecl*>& functions,
             const std::vector<const clang::FunctionDecl*>& project);
  ~FlowEngine();

  // Analyzes a host function from an empty state; its checks see what the final pass finds.
  void analyzeFunction(const clang::FunctionDecl& function);

  // The host waits the analyses so far ran, what each completed, and what the host touched
  // (sync_advice.h).
  const HostFacts& hostFacts() const;

private:
  class Walk;
  std::unique_ptr<Walk> walk_;
};

} // namespace streamrace::analyzer
