// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A finding of the static checks: what the analysis hands to its two front ends (the
// streamrace-check CLI and the clang-tidy module), which render it in their own way.
#pragma once

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceLocation.h"

#include <string>
#include <vector>

namespace streamrace::analyzer {

inline constexpr const char* kCrossStreamCheck = "streamrace-unsynchronized-cross-stream";
inline constexpr const char* kHostAccessCheck = "streamrace-host-access-before-sync";
inline constexpr const char* kUnrecordedEventCheck = "streamrace-wait-unrecorded-event";
inline constexpr const char* kFreeWhilePendingCheck = "streamrace-free-while-pending";

// Advice, not a finding (AnalysisOptions::adviseSyncs): the name the tracer's advisor gives the
// same verdict (docs/sync-advice.md).
inline constexpr const char* kOverStrongSyncAdvice = "streamrace-sync-over-strong";

inline constexpr const char* kAllChecks[] = {kCrossStreamCheck, kHostAccessCheck,
                                             kUnrecordedEventCheck, kFreeWhilePendingCheck};

struct FindingNote {
  clang::SourceLocation location;
  std::string message;
};

struct Finding {
  std::string check;
  clang::SourceLocation location;
  std::string message;
  std::vector<FindingNote> notes;
  std::vector<clang::FixItHint> fixes;
};

} // namespace streamrace::analyzer
