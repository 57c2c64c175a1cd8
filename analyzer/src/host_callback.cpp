// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_callback.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <map>
#include <set>

namespace streamrace::analyzer {
namespace {

class CallbackScanner : public clang::RecursiveASTVisitor<CallbackScanner> {
public:
  CallbackScanner(const clang::FunctionDecl& callback, const clang::VarDecl& userData)
      : parents_(callback.getBody()) {
    userData_.insert(&userData);
  }

  // `T* p = static_cast<T*>(user_data);` names the user data too.
  bool VisitVarDecl(clang::VarDecl* var) {
    if (var->getType()->isPointerType() && var->getInit())
      if (const auto* reference =
              llvm::dyn_cast<clang::DeclRefExpr>(var->getInit()->IgnoreParenCasts());
          reference && userData_.contains(reference->getDecl()))
        userData_.insert(var);
    return true;
  }

  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* element) {
    noteElement(element, element->getBase());
    return true;
  }

  bool VisitUnaryOperator(clang::UnaryOperator* unary) {
    if (unary->getOpcode() == clang::UO_Deref) noteElement(unary, unary->getSubExpr());
    return true;
  }

  std::vector<CallbackAccess> accesses() const {
    std::vector<CallbackAccess> result;
    result.reserve(modes_.size());
    for (const auto& [field, mode] : modes_)
      result.push_back({field, mode.first, mode.second});
    return result;
  }

private:
  // An element of memory `pointer` points to: the user data's own (`p[0]`, `*p`), or a pointer
  // field's (`log->metrics[0]`).
  void noteElement(const clang::Expr* element, const clang::Expr* pointer) {
    if (element->getType()->isPointerType() || element->getType()->isRecordType()) return;
    pointer = pointer->IgnoreParenCasts();
    std::string field;
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(pointer)) {
      if (!member->isArrow() || !member->getType()->isPointerType()) return;
      field = "." + member->getMemberDecl()->getNameAsString();
      pointer = member->getBase()->IgnoreParenCasts();
    }
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(pointer);
    if (!reference || !userData_.contains(reference->getDecl())) return;
    auto& [read, write] = modes_[field];
    const auto [reads, writes] = useOf(element);
    read = read || reads;
    write = write || writes;
  }

  // Whether an element lvalue is read, written, or both where it stands.
  std::pair<bool, bool> useOf(const clang::Expr* element) {
    const clang::Stmt* current = element;
    const clang::Stmt* parent = parents_.getParent(const_cast<clang::Stmt*>(current));
    while (parent && llvm::isa<clang::ParenExpr>(parent)) {
      current = parent;
      parent = parents_.getParent(const_cast<clang::Stmt*>(current));
    }
    if (const auto* binary = llvm::dyn_cast_or_null<clang::BinaryOperator>(parent);
        binary && binary->getLHS() == current) {
      if (binary->getOpcode() == clang::BO_Assign) return {false, true};
      if (binary->isCompoundAssignmentOp()) return {true, true};
    }
    if (const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent);
        unary && unary->isIncrementDecrementOp())
      return {true, true};
    return {true, false};
  }

  clang::ParentMap parents_;
  std::set<const clang::Decl*> userData_;
  std::map<std::string, std::pair<bool, bool>> modes_;
};

} // namespace

std::vector<CallbackAccess> callbackAccesses(const clang::FunctionDecl& callback) {
  if (!callback.getBody()) return {};
  const clang::ParmVarDecl* userData = nullptr;
  for (const clang::ParmVarDecl* parameter : callback.parameters())
    if (parameter->getType()->isVoidPointerType()) userData = parameter;
  if (!userData) return {};
  CallbackScanner scanner(callback, *userData);
  scanner.TraverseStmt(callback.getBody());
  return scanner.accesses();
}

} // namespace streamrace::analyzer
