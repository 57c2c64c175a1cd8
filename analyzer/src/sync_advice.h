// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host waits stronger than what they order (`streamrace-check --advise=sync`): a stream, event or
// device synchronize whose removal leaves only races between two streams, each of which an event
// edge orders, makes the host wait where a stream could. The engine notes every host wait it
// runs and the work each one completed; each wait that completed work, all of it on device
// memory, is taken out and its roots analysed again (AnalysisOptions::removedCall). The host
// reads nothing the wait completed, so the host gains nothing from waiting; the findings new
// without it say which stream must wait for which. This is the dynamic advisor's over-strong
// verdict (docs/sync-advice.md), decided on the code instead of a run.
#pragma once

#include "streamrace/analyzer/finding.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
} // namespace clang

namespace streamrace::analyzer {

// What the analysis saw one host wait do, over every path and root that reached it.
struct HostWaitSite {
  bool completedWork = false;
  // Some work it completed was on memory known to be the host's (pinned, pageable, managed).
  bool completedHostMemory = false;
  // The buffers of the work it completed whose memory the analysis does not know (a parameter,
  // a field another function allocated): device memory unless the host touches them.
  std::set<std::string> unknownMemory;
  std::set<const clang::FunctionDecl*> roots; // the analysed functions whose walk reached it
};

// What the analysis learned of the host, for the advice.
struct HostFacts {
  std::map<const clang::CallExpr*, HostWaitSite> waits;
  // Buffers the host accesses, or a copy takes as host memory, whatever the kind of memory: a
  // wait that completed work on one of them may be the host's own.
  std::set<std::string> touched;
  // Stream work that makes the host wait for it when the call returns (a cudaMemcpy into
  // pageable memory): a race whose later access is one of them gains nothing from an event edge,
  // the host waits there anyway.
  std::set<const clang::CallExpr*> waitingCalls;
};

// The findings of `roots` analysed with `call` taken out.
using AnalyzeWithout = std::function<std::vector<Finding>(
    const clang::CallExpr& call, const std::set<const clang::FunctionDecl*>& roots)>;

// One advice per host wait of the main file shown over-strong, in source order: at the wait,
// with a note for each race its removal lets through and, as fix-its, the wait's removal and the
// event edges those races' findings propose.
std::vector<Finding> adviseHostWaits(const HostFacts& host, const std::vector<Finding>& findings,
                                     const AnalyzeWithout& analyzeWithout,
                                     clang::ASTContext& context);

} // namespace streamrace::analyzer
