// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// streamrace-unsynchronized-cross-stream: a buffer used by work on one stream, then by work on
// another, one of them writing, with no event or synchronization ordering the two on some path.
// The fix-it makes the later stream wait for an event recorded after the earlier work
// (fix_its.h); docs/checks/streamrace-unsynchronized-cross-stream.md.
#include "checks/check.h"
#include "checks/finding_notes.h"
#include "finding_sink.h"
#include "fix_its.h"
#include "storage_keys.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"

namespace streamrace::analyzer {
namespace {

class UnsynchronizedCrossStream : public Check {
public:
  using Check::Check;

  void onUnorderedAccess(const UnorderedAccess& pair) override {
    if (pair.kind != LaterAccess::StreamWork) return;
    const AccessRecord& record = pair.earlier;
    const AccessDetail& earlier = pair.earlierDetail;
    Finding finding;
    finding.check = kCrossStreamCheck;
    const clang::Stmt* site = siteOf(pair.at, pair.frame);
    finding.location = pair.at.getBeginLoc();
    finding.message =
        "'" + displayNameIn(pair.buffer, rootFunction(pair.frame)) + "' is " +
        accessVerb(pair.read, pair.write) + " by " + pair.operation + " on " +
        streamDisplayNameIn(pair.stream, rootFunction(pair.frame)) + " while " + earlier.operation +
        " on " + streamDisplayNameIn(record.stream, rootFunction(pair.frame)) + " " +
        stillPending(record, earlier) + "; no event or synchronization orders the two streams";
    addCallNotes(finding, callChain(pair.frame));
    addEarlierAccessNotes(finding, record, earlier, pair.buffer, rootFunction(pair.frame),
                          context_);
    finding.fixes =
        orderStreamsFix(record.site, site, streamSpelling(record.stream, rootFunction(pair.frame)),
                        streamSpelling(pair.stream, rootFunction(pair.frame)),
                        *pair.frame.rootParents, context_, !pair.hostWaitMayHang);
    sink_.reportFirstConsumer(std::move(finding), pair.buffer,
                              {record.site, record.stream, pair.stream}, site->getBeginLoc());
  }
};

} // namespace

std::unique_ptr<Check> makeUnsynchronizedCrossStream(clang::ASTContext& context,
                                                     FindingSink& sink) {
  return std::make_unique<UnsynchronizedCrossStream>(context, sink);
}

} // namespace streamrace::analyzer
