// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// streamrace-free-while-pending: memory freed while work may still use it — cudaFreeAsync on a
// stream not ordered after the last use, free/delete/cudaFreeHost of registered or pinned host
// memory with a copy pending; docs/checks/streamrace-free-while-pending.md.
#include "checks/check.h"
#include "checks/finding_notes.h"
#include "finding_sink.h"
#include "fix_its.h"
#include "storage_keys.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"

namespace streamrace::analyzer {
namespace {

class FreeWhilePending : public Check {
public:
  using Check::Check;

  void onUnorderedAccess(const UnorderedAccess& pair) override {
    if (pair.kind != LaterAccess::StreamFree && pair.kind != LaterAccess::HostFree) return;
    const AccessRecord& record = pair.earlier;
    const AccessDetail& earlier = pair.earlierDetail;
    Finding finding;
    finding.check = kFreeWhilePendingCheck;
    const clang::Stmt* site = siteOf(pair.at, pair.frame);
    finding.location = pair.at.getBeginLoc();
    const std::string freedBy =
        pair.kind == LaterAccess::StreamFree
            ? pair.operation + " on " + streamDisplayNameIn(pair.stream, rootFunction(pair.frame))
            : "the host (" + pair.operation + ")";
    finding.message = "'" + displayNameIn(pair.buffer, rootFunction(pair.frame)) +
                      "' is freed by " + freedBy + " while " + earlier.operation + " on " +
                      streamDisplayNameIn(record.stream, rootFunction(pair.frame)) + " " +
                      stillPending(record, earlier);
    addCallNotes(finding, callChain(pair.frame));
    addEarlierAccessNotes(finding, record, earlier, pair.buffer, rootFunction(pair.frame), context_,
                          pair.kind == LaterAccess::StreamFree ? LaterSide::Stream
                                                               : LaterSide::Host);
    if (pair.kind == LaterAccess::StreamFree) {
      finding.fixes = orderStreamsFix(record.site, site,
                                      streamSpelling(record.stream, rootFunction(pair.frame)),
                                      streamSpelling(pair.stream, rootFunction(pair.frame)),
                                      *pair.frame.rootParents, context_, !pair.hostWaitMayHang);
    } else if (!withholdHostWait(finding, pair)) {
      finding.fixes =
          synchronizeBeforeFix(site, streamSpelling(record.stream, rootFunction(pair.frame)),
                               *pair.frame.rootParents, context_);
    }
    sink_.report(std::move(finding), pair.buffer);
  }
};

} // namespace

std::unique_ptr<Check> makeFreeWhilePending(clang::ASTContext& context, FindingSink& sink) {
  return std::make_unique<FreeWhilePending>(context, sink);
}

} // namespace streamrace::analyzer
