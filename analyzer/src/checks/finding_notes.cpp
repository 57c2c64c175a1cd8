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

std::string describeFunction(const clang::FunctionDecl& function) {
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&function))
    if (method->getParent()->isLambda()) return "the lambda";
  return "'" + function.getNameAsString() + "'";
}

void addCallNotes(Finding& finding, const std::vector<CallStep>& chain) {
  for (const CallStep& step : chain)
    if (step.call && step.callee)
      finding.notes.push_back(
          {step.call->getBeginLoc(), describeFunction(*step.callee) + " is called here"});
}

void addEarlierAccessNotes(Finding& finding, const AccessRecord& record,
                           const AccessDetail& earlier, const std::string& buffer,
                           const clang::ASTContext& context) {
  const clang::SourceLocation at =
      earlier.call ? earlier.call->getBeginLoc() : record.site->getBeginLoc();
  finding.notes.push_back({at, earlier.operation + " " +
                                   (earlier.read && earlier.write ? "reads and writes"
                                    : earlier.write               ? "writes"
                                                                  : "reads") +
                                   " '" + displayName(buffer) + "' on " +
                                   streamDisplayName(record.stream) + " here"});
  addCallNotes(finding, earlier.chain);
  const clang::SourceLocation eventPoint = locationAfterStatement(record.site, context);
  if (eventPoint.isValid())
    finding.notes.push_back({eventPoint, "an event recorded on " +
                                             streamDisplayName(record.stream) +
                                             " here, and waited on before the later access, "
                                             "would order the two"});
}

bool withholdHostWait(Finding& finding, const UnorderedAccess& pair) {
  if (!pair.hostWaitMayHang) return false;
  finding.notes.push_back({finding.location, "no fix-it: a kernel on " +
                                                 streamDisplayName(pair.earlier.stream) +
                                                 " waits for a flag, and synchronizing with the "
                                                 "stream before the flag is set would never "
                                                 "return"});
  return true;
}

} // namespace streamrace::analyzer
