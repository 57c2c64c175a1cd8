// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where the analysis announces what it gave up on (streamrace/analyzer/remark.h): once per kind
// and place, however many passes and calls reach it.
#pragma once

#include "streamrace/analyzer/remark.h"

#include <set>
#include <utility>
#include <vector>

namespace clang {
class SourceManager;
} // namespace clang

namespace streamrace::analyzer {

class RemarkSink {
public:
  explicit RemarkSink(const clang::SourceManager& sources) : sources_(sources) {}

  void remark(RemarkKind kind, clang::SourceLocation location, std::string message);

  // The remarks in source order.
  std::vector<Remark> takeRemarks();

private:
  const clang::SourceManager& sources_;
  std::set<std::pair<RemarkKind, clang::SourceLocation::UIntTy>> announced_;
  std::vector<Remark> remarks_;
};

} // namespace streamrace::analyzer
