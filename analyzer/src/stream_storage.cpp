// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "stream_storage.h"

#include "storage_keys.h"

#include "streamrace/api_model/api_model.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

namespace streamrace::analyzer {
namespace {

// How many getters deep a stream expression is followed (`pool.current().get()`).
constexpr unsigned kMaxGetterDepth = 3;

const clang::ValueDecl* storageThroughGetters(const clang::Expr* expr, unsigned depth) {
  if (!expr) return nullptr;
  expr = expr->IgnoreParenImpCasts();
  if (const auto* address = llvm::dyn_cast<clang::UnaryOperator>(expr))
    return address->getOpcode() == clang::UO_AddrOf
               ? storageThroughGetters(address->getSubExpr(), depth)
               : nullptr;
  if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(expr))
    return storageThroughGetters(cast->getSubExpr(), depth);
  if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(expr))
    return llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
  if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr)) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(reference->getDecl());
    return var && var->hasGlobalStorage() && !var->isStaticLocal() ? var : nullptr;
  }
  if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(expr))
    return storageThroughGetters(subscript->getBase(), depth);
  if (const auto* operatorCall = llvm::dyn_cast<clang::CXXOperatorCallExpr>(expr))
    return operatorCall->getOperator() == clang::OO_Subscript && operatorCall->getNumArgs() == 2
               ? storageThroughGetters(operatorCall->getArg(0), depth)
               : nullptr;
  if (const auto* memberCall = llvm::dyn_cast<clang::CXXMemberCallExpr>(expr)) {
    const clang::CXXMethodDecl* method = memberCall->getMethodDecl();
    if (!method || depth >= kMaxGetterDepth) return nullptr;
    const clang::Expr* returned = returnedBy(*method);
    return returned ? storageThroughGetters(returned, depth + 1) : nullptr;
  }
  return nullptr;
}

} // namespace

const clang::ValueDecl* storageOf(const clang::Expr* expr) {
  return storageThroughGetters(expr, 0);
}

namespace {

class CreationCollector : public clang::RecursiveASTVisitor<CreationCollector> {
public:
  CreationCollector(const UserModel* userModel, const KernelSummaries& kernels,
                    clang::ASTContext& context, std::map<const clang::ValueDecl*, bool>& found)
      : userModel_(userModel), kernels_(kernels), context_(context), found_(found) {}

  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (!callee || !callee->getDeclName().isIdentifier() ||
        !callee->getName().contains("StreamCreate"))
      return true;
    std::optional<CallEffect> effect = classifyCall(*call, userModel_, kernels_, context_);
    if (!effect || effect->kind != CallEffectKind::StreamCreate) return true;
    const clang::ValueDecl* storage = storageOf(effect->outPointer);
    if (!storage) return true;
    storage = llvm::cast<clang::ValueDecl>(storage->getCanonicalDecl());
    const std::optional<int64_t> flags = constantValue(effect->flags, context_);
    const bool nonBlocking = flags && (*flags & api_model::kStreamNonBlockingFlag);
    auto [slot, inserted] = found_.try_emplace(storage, nonBlocking);
    if (!inserted) slot->second = slot->second && nonBlocking;
    return true;
  }

private:
  const UserModel* userModel_;
  const KernelSummaries& kernels_;
  clang::ASTContext& context_;
  std::map<const clang::ValueDecl*, bool>& found_;
};

} // namespace

StreamStorage::StreamStorage(const std::vector<const clang::FunctionDecl*>& functions,
                             const UserModel* userModel, const KernelSummaries& kernels,
                             clang::ASTContext& context) {
  CreationCollector collector(userModel, kernels, context, nonBlocking_);
  for (const clang::FunctionDecl* function : functions)
    collector.TraverseStmt(function->getBody());
}

bool StreamStorage::createdNonBlocking(const clang::Expr* stream) const {
  if (nonBlocking_.empty()) return false;
  const clang::ValueDecl* storage = storageOf(stream);
  if (!storage) return false;
  auto found = nonBlocking_.find(llvm::cast<clang::ValueDecl>(storage->getCanonicalDecl()));
  return found != nonBlocking_.end() && found->second;
}

} // namespace streamrace::analyzer
