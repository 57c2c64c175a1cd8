// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "event_uses.h"

#include "handle_types.h"

#include "streamrace/api_model/api_model.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace streamrace::analyzer {
namespace {

bool isEventStorage(const clang::ValueDecl& storage) {
  clang::QualType type = storage.getType();
  while (const clang::ArrayType* array = type->getAsArrayTypeUnsafe())
    type = array->getElementType();
  return isHandleType(type, kEventRecord);
}

// The mention of the storage an event expression reads, through casts, `&` and subscripts.
const clang::Expr* mentionOf(const clang::Expr* event) {
  while (event) {
    event = event->IgnoreParenImpCasts();
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(event);
        unary && unary->getOpcode() == clang::UO_AddrOf)
      event = unary->getSubExpr();
    else if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(event))
      event = cast->getSubExpr();
    else if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(event))
      event = subscript->getBase();
    else
      return event;
  }
  return nullptr;
}

const clang::ValueDecl* mentioned(const clang::Expr* mention) {
  if (const auto* reference = llvm::dyn_cast_or_null<clang::DeclRefExpr>(mention))
    return reference->getDecl();
  if (const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(mention))
    return member->getMemberDecl();
  return nullptr;
}

bool ordersNothing(api_model::ApiRole role) {
  return role == api_model::ApiRole::EventRecord || role == api_model::ApiRole::EventCreate ||
         role == api_model::ApiRole::EventDestroy;
}

class MentionCollector : public clang::RecursiveASTVisitor<MentionCollector> {
public:
  MentionCollector(std::set<const clang::ValueDecl*>& mentioned,
                   std::set<const clang::ValueDecl*>& used)
      : mentioned_(mentioned), used_(used) {}

  bool shouldVisitLambdaBody() const { return true; }

  // Mentions that leave the event as it is. Parents come before their children here, so each is
  // known before its mention is visited.
  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    const api_model::ApiFunction* function =
        callee && callee->getIdentifier() ? api_model::findApiFunction(callee->getName()) : nullptr;
    if (!function || !ordersNothing(function->role)) return true;
    for (const api_model::ArgMeaning meaning :
         {api_model::ArgMeaning::Event, api_model::ArgMeaning::EventOut})
      if (const std::optional<std::size_t> index = function->argIndex(meaning);
          index && *index < call->getNumArgs())
        passive(call->getArg(static_cast<unsigned>(*index)));
    return true;
  }

  bool VisitBinaryOperator(clang::BinaryOperator* binary) {
    if (binary->isAssignmentOp()) passive(binary->getLHS());
    if (binary->isEqualityOp()) {
      passive(binary->getLHS());
      passive(binary->getRHS());
    }
    return true;
  }

  bool VisitUnaryOperator(clang::UnaryOperator* unary) {
    if (unary->getOpcode() == clang::UO_LNot) passive(unary->getSubExpr());
    return true;
  }

  bool VisitIfStmt(clang::IfStmt* branch) {
    passive(branch->getCond());
    return true;
  }

  bool VisitDeclRefExpr(clang::DeclRefExpr* reference) {
    note(reference, reference->getDecl());
    return true;
  }

  bool VisitMemberExpr(clang::MemberExpr* member) {
    note(member, member->getMemberDecl());
    return true;
  }

private:
  void passive(const clang::Expr* event) {
    if (const clang::Expr* mention = mentionOf(event)) passive_.insert(mention);
  }

  void note(const clang::Expr* mention, const clang::ValueDecl* storage) {
    if (!storage || !isEventStorage(*storage)) return;
    mentioned_.insert(storage);
    if (!passive_.contains(mention)) used_.insert(storage);
  }

  std::set<const clang::Expr*> passive_;
  std::set<const clang::ValueDecl*>& mentioned_;
  std::set<const clang::ValueDecl*>& used_;
};

} // namespace

EventUses::EventUses(const std::vector<const clang::FunctionDecl*>& functions) {
  MentionCollector collector(mentioned_, used_);
  for (const clang::FunctionDecl* function : functions) {
    collector.TraverseStmt(function->getBody());
    if (const auto* constructor = llvm::dyn_cast<clang::CXXConstructorDecl>(function))
      for (const clang::CXXCtorInitializer* initializer : constructor->inits())
        collector.TraverseStmt(initializer->getInit());
  }
}

const clang::ValueDecl* EventUses::storageOf(const clang::Expr* event) {
  return mentioned(mentionOf(event));
}

bool EventUses::waitedNowhere(const clang::ValueDecl* event) const {
  return event && !llvm::isa<clang::ParmVarDecl>(event) && mentioned_.contains(event) &&
         !used_.contains(event);
}

} // namespace streamrace::analyzer
