// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// streamrace-wait-unrecorded-event: cudaStreamWaitEvent on an event created in the analyzed code
// and recorded on no path before the wait, so the wait orders nothing wherever it runs;
// docs/checks/streamrace-wait-unrecorded-event.md.
#include "checks/check.h"
#include "checks/finding_notes.h"
#include "finding_sink.h"
#include "storage_keys.h"

#include "clang/AST/Expr.h"

namespace streamrace::analyzer {
namespace {

class WaitUnrecordedEvent : public Check {
public:
  using Check::Check;

  void onUnrecordedWait(const UnrecordedWait& wait) override {
    Finding finding;
    finding.check = kUnrecordedEventCheck;
    finding.location = wait.call.getBeginLoc();
    finding.message = streamDisplayNameIn(wait.stream, rootFunction(wait.frame)) +
                      " waits on event '" + displayNameIn(wait.event, rootFunction(wait.frame)) +
                      "', which is not recorded on any path to this wait; the wait orders nothing";
    if (wait.waited.created.isValid())
      finding.notes.push_back(
          {wait.waited.created,
           "event '" + displayNameIn(wait.event, rootFunction(wait.frame)) + "' is created here"});
    addCallNotes(finding, callChain(wait.frame));
    sink_.report(std::move(finding), wait.event);
  }
};

} // namespace

std::unique_ptr<Check> makeWaitUnrecordedEvent(clang::ASTContext& context, FindingSink& sink) {
  return std::make_unique<WaitUnrecordedEvent>(context, sink);
}

} // namespace streamrace::analyzer
