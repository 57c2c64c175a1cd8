// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "finding_sink.h"

#include "storage_keys.h"

#include "clang/Basic/SourceManager.h"

#include <algorithm>

namespace streamrace::analyzer {

void FindingSink::report(Finding finding, const std::string& subject) {
  // The same words at the same place are the same race, whichever call reached it; the same
  // place with other words (the streams the other way round) is another.
  auto identity = std::make_tuple(finding.check, finding.location.getRawEncoding(),
                                  displayName(subject) + "\n" + finding.message);
  if (!reported_.insert(identity).second) return;
  findings_.push_back(std::move(finding));
}

void FindingSink::reportFirstConsumer(Finding finding, const std::string& subject,
                                      const ProducerAndConsumer& streams,
                                      clang::SourceLocation order) {
  auto [slot, inserted] = firstConsumers_.try_emplace(streams);
  FirstConsumer& first = slot->second;
  const clang::SourceLocation at = finding.location;
  if (!inserted && (first.order != order || first.at != at)) {
    if (!comesBefore(order, at, first)) return;
    supersede(first.findings);
  }
  first.order = order;
  first.at = at;
  const std::size_t index = findings_.size();
  report(std::move(finding), subject);
  if (findings_.size() > index) first.findings.push_back(index);
}

void FindingSink::reportLeftPending(Finding finding, const std::string& subject,
                                    const clang::Stmt* access, std::size_t callDepth) {
  auto [slot, inserted] = leftPending_.try_emplace(access, LeftPending{callDepth, {}});
  LeftPending& innermost = slot->second;
  if (!inserted && callDepth != innermost.callDepth) {
    if (callDepth > innermost.callDepth) return;
    supersede(innermost.findings);
    innermost.callDepth = callDepth;
  }
  const std::size_t index = findings_.size();
  report(std::move(finding), subject);
  if (findings_.size() > index) innermost.findings.push_back(index);
}

void FindingSink::supersede(std::vector<std::size_t>& indices) {
  superseded_.insert(indices.begin(), indices.end());
  indices.clear();
}

bool FindingSink::comesBefore(clang::SourceLocation order, clang::SourceLocation at,
                              const FirstConsumer& first) const {
  if (order != first.order) return sources_.isBeforeInTranslationUnit(order, first.order);
  // Both inside one call of the analyzed function: the callee's first access.
  return sources_.isBeforeInTranslationUnit(at, first.at);
}

std::vector<Finding> FindingSink::takeFindings() {
  for (auto index = superseded_.rbegin(); index != superseded_.rend(); ++index)
    findings_.erase(findings_.begin() + static_cast<std::ptrdiff_t>(*index));
  superseded_.clear();
  std::stable_sort(findings_.begin(), findings_.end(), [&](const Finding& a, const Finding& b) {
    return sources_.isBeforeInTranslationUnit(a.location, b.location);
  });
  return std::move(findings_);
}

} // namespace streamrace::analyzer
