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

#include "clang/AST/Decl.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"

namespace streamrace::analyzer {
namespace {

class UnsynchronizedCrossStream : public Check {
public:
  using Check::Check;

  void onUnorderedAccess(const UnorderedAccess& pair) override {
    if (pair.kind != LaterAccess::StreamWork) return;
    if (pair.earlier.buffer == kCallersMemory) {
      reportBeforeWaitingForCaller(pair);
      return;
    }
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
    addEarlierAccessNotes(finding, record, earlier, pair.buffer, rootFunction(pair.frame), context_,
                          LaterSide::Stream);
    finding.fixes =
        orderStreamsFix(record.site, site, streamSpelling(record.stream, rootFunction(pair.frame)),
                        streamSpelling(pair.stream, rootFunction(pair.frame)),
                        *pair.frame.rootParents, context_, !pair.hostWaitMayHang);
    sink_.reportFirstConsumer(std::move(finding), pair.buffer,
                              {record.site, record.stream, pair.stream}, site->getBeginLoc());
  }

  // The stream-argument contract (flow_engine.cpp), on entry: the function's own stream touches
  // what the caller handed in before waiting for the caller's stream.
  void reportBeforeWaitingForCaller(const UnorderedAccess& pair) {
    const clang::FunctionDecl& function = rootFunction(pair.frame);
    const std::string caller = streamDisplayNameIn(pair.earlier.stream, function);
    const std::string side = streamDisplayNameIn(pair.stream, function);
    const std::string buffer = displayNameIn(pair.buffer, function);
    Finding finding;
    finding.check = kCrossStreamCheck;
    finding.location = pair.at.getBeginLoc();
    finding.message = "'" + buffer + "' is " + accessVerb(pair.read, pair.write) + " by " +
                      pair.operation + " on " + side + " while the caller's work on " + caller +
                      " before the call may still be writing it; " + side + " does not wait for " +
                      caller + " first";
    addCallNotes(finding, callChain(pair.frame));
    finding.notes.push_back(
        {function.getLocation(), describeFunction(function) + " takes " + caller +
                                     ": the caller's work on it before the call may still be "
                                     "writing '" +
                                     buffer + "'"});
    // In the function that takes the stream, where the side work starts (a call leading to it).
    const clang::Stmt* site = siteOf(pair.at, pair.frame);
    finding.notes.push_back({site->getBeginLoc(), "an event recorded on " + caller +
                                                      " and waited on by " + side +
                                                      " (cudaStreamWaitEvent) here would order "
                                                      "the two"});
    sink_.reportFirstConsumer(std::move(finding), pair.buffer,
                              {pair.earlier.site, pair.earlier.stream, pair.stream},
                              site->getBeginLoc());
  }

  // On return: the function's own stream may still be working on what the caller handed in
  // when the caller's later work starts, on the stream it passed (the stream-argument contract)
  // or on whatever stream it uses, when the function takes none.
  void onPendingAtReturn(const PendingAtReturn& pending) override {
    const clang::FunctionDecl& function = pending.function;
    const std::string side = streamDisplayNameIn(pending.record.stream, function);
    const std::string buffer = displayNameIn(pending.record.buffer, function);
    const std::string stillDoing = pending.record.write ? "writing" : "reading";
    Finding finding;
    finding.check = kCrossStreamCheck;
    finding.location = pending.detail.call->getBeginLoc();
    finding.message = "'" + buffer + "' is " +
                      accessVerb(pending.detail.read, pending.detail.write) + " by " +
                      pending.detail.operation + " on " + side + ", ";
    std::string order;
    if (pending.parameterStream) {
      const std::string caller = streamDisplayNameIn(*pending.parameterStream, function);
      finding.message += "which " + describeFunction(function) + " does not join back into " +
                         caller + " before returning; the caller's later work on " + caller +
                         " may run while it is still " + stillDoing + " it";
      order = "an event recorded on " + side + " after that work and waited on by " + caller +
              " (cudaStreamWaitEvent), or a synchronization of " + side + ",";
    } else if (pending.unwaitedRecord) {
      finding.message += "still running when " + describeFunction(function) + " returns, and '" +
                         displayNameIn(pending.event, function) +
                         "', recorded after it, is waited for nowhere in this translation unit: "
                         "later work on another stream, or on the host, may run while it is "
                         "still " +
                         stillDoing + " it";
    } else {
      finding.message += "still running when " + describeFunction(function) +
                         " returns: it takes no stream, so the caller's later work, on a stream "
                         "of its own or on the host, may run while it is still " +
                         stillDoing + " it";
      order = "a synchronization of " + side;
    }
    addCallNotes(finding, pending.detail.chain);
    if (pending.unwaitedRecord)
      finding.notes.push_back(
          {pending.unwaitedRecord->getBeginLoc(),
           "'" + displayNameIn(pending.event, function) +
               "' is recorded here: a cudaStreamWaitEvent on it by the stream that next uses '" +
               buffer + "' (cudaEventSynchronize before the host does) would order the two"});
    else
      finding.notes.push_back({function.getBody()->getEndLoc(),
                               describeFunction(function) + " returns here: " + order +
                                   " before returning would order the caller's later work"});
    sink_.reportLeftPending(std::move(finding), pending.record.buffer, pending.detail.call,
                            pending.detail.chain.size());
  }
};

} // namespace

std::unique_ptr<Check> makeUnsynchronizedCrossStream(clang::ASTContext& context,
                                                     FindingSink& sink) {
  return std::make_unique<UnsynchronizedCrossStream>(context, sink);
}

} // namespace streamrace::analyzer
