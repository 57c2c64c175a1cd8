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

void addAccessNotes(Finding& finding, const AccessRecord& record, const AccessDetail& earlier,
                    const std::string& buffer, const clang::ASTContext& context) {
  finding.notes.push_back(
      {record.site->getBeginLoc(), earlier.operation + " " +
                                       (earlier.read && earlier.write ? "reads and writes"
                                        : earlier.write               ? "writes"
                                                                      : "reads") +
                                       " '" + displayName(buffer) + "' on " +
                                       streamDisplayName(record.stream) + " here"});
  if (earlier.call && earlier.call != record.site && earlier.function)
    finding.notes.push_back({earlier.call->getBeginLoc(), "the access is made here, inside " +
                                                              describeFunction(*earlier.function)});
  const clang::SourceLocation eventPoint = locationAfterStatement(record.site, context);
  if (eventPoint.isValid())
    finding.notes.push_back({eventPoint, "an event recorded on " +
                                             streamDisplayName(record.stream) +
                                             " here, and waited on before the later access, "
                                             "would order the two"});
}

void addInnerNote(Finding& finding, const clang::Stmt& access, const Frame& frame,
                  const std::string& operation) {
  if (!frame.site) return;
  finding.notes.push_back(
      {access.getBeginLoc(),
       "the later access is " + operation + " here, inside " + describeFunction(*frame.function)});
}

} // namespace streamrace::analyzer
