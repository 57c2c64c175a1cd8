// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// streamrace-host-access-before-sync: the host reads or writes pinned memory while an
// asynchronous copy or kernel may still be using it. The fix-it synchronizes the stream before
// the host's access; docs/checks/streamrace-host-access-before-sync.md.
#include "checks/check.h"
#include "checks/finding_notes.h"
#include "finding_sink.h"
#include "fix_its.h"
#include "storage_keys.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"

namespace streamrace::analyzer {
namespace {

class HostAccessBeforeSync : public Check {
public:
  using Check::Check;

  void onUnorderedAccess(const UnorderedAccess& pair) override {
    if (pair.kind != LaterAccess::HostAccess) return;
    const AccessRecord& record = pair.earlier;
    const AccessDetail& earlier = pair.earlierDetail;
    Finding finding;
    finding.check = kHostAccessCheck;
    const clang::Stmt* site = siteOf(pair.at, pair.frame);
    finding.location = pair.at.getBeginLoc();
    finding.message =
        std::string("the host ") + (pair.write ? "writes" : "reads") + " '" +
        displayNameIn(pair.buffer, rootFunction(pair.frame)) + "' while " + earlier.operation +
        " on " + streamDisplayNameIn(record.stream, rootFunction(pair.frame)) + " " +
        stillPending(record, earlier) + "; synchronize the stream before touching the buffer";
    addCallNotes(finding, callChain(pair.frame));
    addEarlierAccessNotes(finding, record, earlier, pair.buffer, rootFunction(pair.frame), context_,
                          LaterSide::Host);
    if (!withholdHostWait(finding, pair))
      finding.fixes =
          synchronizeBeforeFix(site, streamSpelling(record.stream, rootFunction(pair.frame)),
                               *pair.frame.rootParents, context_);
    sink_.report(std::move(finding), pair.buffer);
  }
};

} // namespace

std::unique_ptr<Check> makeHostAccessBeforeSync(clang::ASTContext& context, FindingSink& sink) {
  return std::make_unique<HostAccessBeforeSync>(context, sink);
}

} // namespace streamrace::analyzer
