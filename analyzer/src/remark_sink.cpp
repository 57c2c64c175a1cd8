// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "remark_sink.h"

#include "clang/Basic/SourceManager.h"

#include <algorithm>

namespace streamrace::analyzer {

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
