// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "callable_targets.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <algorithm>

namespace streamrace::analyzer {
namespace {

// The canonical `std::function<...>` type `type` is, or null.
const clang::Type* functionObjectType(clang::QualType type) {
  if (type.isNull()) return nullptr;
  const clang::CXXRecordDecl* record = type.getNonReferenceType()->getAsCXXRecordDecl();
  if (!record || !record->getDeclName().isIdentifier() || record->getName() != "function" ||
      !record->isInStdNamespace())
    return nullptr;
  return type.getNonReferenceType()->getCanonicalTypeUnqualified().getTypePtr();
}

class LambdaCollector : public clang::RecursiveASTVisitor<LambdaCollector> {
public:
  explicit LambdaCollector(
      std::map<const clang::Type*, std::vector<const clang::CXXMethodDecl*>>& targets)
      : targets_(targets) {}

  bool VisitCXXConstructExpr(clang::CXXConstructExpr* construction) {
    const clang::Type* type = functionObjectType(construction->getType());
    if (!type || construction->getNumArgs() == 0) return true;
    const auto* lambda =
        llvm::dyn_cast<clang::LambdaExpr>(construction->getArg(0)->IgnoreImplicit());
    if (!lambda) return true;
    std::vector<const clang::CXXMethodDecl*>& targets = targets_[type];
    const clang::CXXMethodDecl* target = lambda->getCallOperator();
    if (std::find(targets.begin(), targets.end(), target) == targets.end())
      targets.push_back(target);
    return true;
  }

private:
  std::map<const clang::Type*, std::vector<const clang::CXXMethodDecl*>>& targets_;
};

} // namespace

CallableTargets::CallableTargets(const std::vector<const clang::FunctionDecl*>& functions) {
  LambdaCollector collector(targets_);
  for (const clang::FunctionDecl* function : functions)
    collector.TraverseStmt(function->getBody());
}

const std::vector<const clang::CXXMethodDecl*>&
CallableTargets::targetsOf(const clang::CXXOperatorCallExpr& call) const {
  static const std::vector<const clang::CXXMethodDecl*> none;
  if (call.getOperator() != clang::OO_Call || call.getNumArgs() == 0) return none;
  const clang::Type* type = functionObjectType(call.getArg(0)->getType());
  auto found = type ? targets_.find(type) : targets_.end();
  return found == targets_.end() ? none : found->second;
}

} // namespace streamrace::analyzer
