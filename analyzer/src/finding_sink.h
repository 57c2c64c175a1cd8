// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where the checks put their findings: each reported once, however often the analysis reaches it
// (template instantiations, a callee analyzed in place from several calls).
#pragma once

#include "streamrace/analyzer/finding.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace clang {
class SourceManager;
class Stmt;
} // namespace clang

namespace streamrace::analyzer {

class FindingSink {
public:
  explicit FindingSink(const clang::SourceManager& sources) : sources_(sources) {}

  // Keeps `finding` unless one of the same check, place, subject and message was kept already.
  void report(Finding finding, const std::string& subject);

  // Work on one stream racing with later work on another is reported at the later access first
  // in the source only: its fix-it makes that stream wait for the producer, which orders the
  // producer before everything enqueued on the stream after the wait as well. (Several buffers
  // of one producer and one consumer are several findings there.)
  struct ProducerAndConsumer {
    const clang::Stmt* producer;
    std::string producerStream;
    std::string consumerStream;
    auto operator<=>(const ProducerAndConsumer&) const = default;
  };
  // `order` places the consumer in the analyzed function (the finding itself may sit inside a
  // function it calls).
  void reportFirstConsumer(Finding finding, const std::string& subject,
                           const ProducerAndConsumer& streams, clang::SourceLocation order);

  // A function returning with work still pending on a stream its caller goes on using is
  // reported in the innermost function that returns so: joining there orders the work for every
  // caller, so a caller the work only passes through (`callDepth` calls above the access) is not
  // reported for it as well.
  void reportLeftPending(Finding finding, const std::string& subject, const clang::Stmt* access,
                         std::size_t callDepth);

  // The findings in source order.
  std::vector<Finding> takeFindings();

private:
  struct FirstConsumer {
    clang::SourceLocation order;
    clang::SourceLocation at; // the finding's own place, which orders accesses in one call
    std::vector<std::size_t> findings;
  };

  struct LeftPending {
    std::size_t callDepth;
    std::vector<std::size_t> findings;
  };

  // Drops the findings at `indices` from what takeFindings returns.
  void supersede(std::vector<std::size_t>& indices);

  // Whether a consumer at (`order`, `at`) comes before `first`.
  bool comesBefore(clang::SourceLocation order, clang::SourceLocation at,
                   const FirstConsumer& first) const;

  const clang::SourceManager& sources_;
  std::set<std::tuple<std::string, clang::SourceLocation::UIntTy, std::string>> reported_;
  std::vector<Finding> findings_;
  std::map<ProducerAndConsumer, FirstConsumer> firstConsumers_;
  std::map<const clang::Stmt*, LeftPending> leftPending_;
  std::set<std::size_t> superseded_;
};

} // namespace streamrace::analyzer
