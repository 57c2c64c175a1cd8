// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "checks/finding_notes.h"

#include "fix_its.h"
#include "storage_keys.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"

namespace streamrace::analyzer {

std::string accessVerb(bool read, bool write) {
  if (read && write) return "read and written";
  return write ? "written" : "read";
}

std::string stillPending(const AccessRecord& record, const AccessDetail& earlier) {
  if (earlier.allocates) return "may not have allocated it yet";
  return std::string("may still be ") + (record.write ? "writing" : "reading") + " it";
}

std::string describeFunction(const clang::FunctionDecl& function) {
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&function))
    if (method->getParent()->isLambda()) return "the lambda";
  std::string name = "'" + function.getNameAsString() + "'";
  if (llvm::isa<clang::CXXConstructorDecl>(function)) return "the constructor " + name;
  if (llvm::isa<clang::CXXDestructorDecl>(function)) return "the destructor " + name;
  return name;
}

void addCallNotes(Finding& finding, const std::vector<CallStep>& chain) {
  for (const CallStep& step : chain)
    if (step.call && step.callee)
      finding.notes.push_back(
          {callLocation(*step.call), describeFunction(*step.callee) + " is called here"});
}

void addEarlierAccessNotes(Finding& finding, const AccessRecord& record,
                           const AccessDetail& earlier, const std::string& buffer,
                           const clang::FunctionDecl& where, const clang::ASTContext& context,
                           LaterSide later) {
  const clang::SourceLocation at =
      earlier.call ? earlier.call->getBeginLoc() : record.site->getBeginLoc();
  finding.notes.push_back({at, earlier.operation + " " +
                                   (earlier.allocates               ? "allocates"
                                    : earlier.read && earlier.write ? "reads and writes"
                                    : earlier.write                 ? "writes"
                                                                    : "reads") +
                                   " '" + displayNameIn(buffer, where) + "' on " +
                                   streamDisplayNameIn(record.stream, where) + " here"});
  addCallNotes(finding, earlier.chain);
  const clang::SourceLocation eventPoint = locationAfterStatement(record.site, context);
  if (eventPoint.isValid())
    finding.notes.push_back(
        {eventPoint, "an event recorded on " + streamDisplayNameIn(record.stream, where) +
                         (later == LaterSide::Stream
                              ? " here, and waited on before the later access, "
                              : " here, and synchronized (cudaEventSynchronize) before the host's "
                                "access, ") +
                         "would order the two"});
}

bool withholdHostWait(Finding& finding, const UnorderedAccess& pair) {
  if (!pair.hostWaitMayHang) return false;
  finding.notes.push_back(
      {finding.location, "no fix-it: a kernel on " +
                             streamDisplayNameIn(pair.earlier.stream, rootFunction(pair.frame)) +
                             " waits for a flag, and synchronizing with the "
                             "stream before the flag is set would never "
                             "return"});
  return true;
}

} // namespace streamrace::analyzer
