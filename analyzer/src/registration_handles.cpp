// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "registration_handles.h"

#include "sub_statements.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

namespace streamrace::analyzer {
namespace {

// The pointer whose address `call` gives a function of the program that returns an integer and
// whose body is not here: `buffer` in `registerBuffer(&buffer, bytes, comm)`.
const clang::Expr* registeredPointer(const clang::Expr* value, const clang::ASTContext& context,
                                     ExternalDefinitions* external) {
  const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(value->IgnoreParenCasts());
  const clang::FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
  if (!callee || callee->getDefinition() ||
      context.getSourceManager().isInSystemHeader(callee->getLocation()) ||
      analyzableDefinition(*callee, context.getSourceManager(), external))
    return nullptr;
  const clang::QualType result = callee->getReturnType();
  if (!result->isIntegralOrEnumerationType() || result->isBooleanType()) return nullptr;
  for (const clang::Expr* argument : call->arguments()) {
    const auto* address = llvm::dyn_cast<clang::UnaryOperator>(argument->IgnoreParenCasts());
    if (!address || address->getOpcode() != clang::UO_AddrOf) continue;
    const clang::Expr* pointer = address->getSubExpr()->IgnoreParenCasts();
    if (pointer->getType()->isPointerType() &&
        llvm::isa<clang::DeclRefExpr, clang::MemberExpr>(pointer))
      return pointer;
  }
  return nullptr;
}

bool namesVariable(const clang::Expr* expr, const clang::VarDecl& variable) {
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenCasts());
  return reference && reference->getDecl() == &variable;
}

// Whether `value` is `variable`, or an object built from it (`Tensor(buffer, shape)`).
bool heldIn(const clang::Expr* value, const clang::VarDecl& variable) {
  if (namesVariable(value, variable)) return true;
  const auto* construction = llvm::dyn_cast<clang::CXXConstructExpr>(value->IgnoreImplicit());
  if (const auto* cast = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(value->IgnoreImplicit()))
    construction = llvm::dyn_cast<clang::CXXConstructExpr>(cast->getSubExpr()->IgnoreImplicit());
  if (!construction) return false;
  for (const clang::Expr* argument : construction->arguments())
    if (namesVariable(argument, variable)) return true;
  return false;
}

// The field of the enclosing object that `body` keeps `variable` in (`_ubuf = Tensor(buffer, ...)`,
// `buf_ = buffer`), or empty.
std::string fieldKeeping(const clang::Stmt* body, const clang::VarDecl& variable) {
  std::string kept;
  forEachStatement(body, [&](const clang::Stmt& stmt) {
    const clang::Expr* target = nullptr;
    const clang::Expr* value = nullptr;
    if (const auto* assign = llvm::dyn_cast<clang::BinaryOperator>(&stmt);
        assign && assign->getOpcode() == clang::BO_Assign) {
      target = assign->getLHS();
      value = assign->getRHS();
    } else if (const auto* call = llvm::dyn_cast<clang::CXXOperatorCallExpr>(&stmt);
               call && call->getOperator() == clang::OO_Equal && call->getNumArgs() == 2) {
      target = call->getArg(0);
      value = call->getArg(1);
    }
    const auto* member =
        target ? llvm::dyn_cast<clang::MemberExpr>(target->IgnoreParenImpCasts()) : nullptr;
    if (member && llvm::isa<clang::CXXThisExpr>(member->getBase()->IgnoreParenImpCasts()) &&
        heldIn(value, variable))
      kept = "." + member->getMemberDecl()->getNameAsString();
  });
  return kept;
}

} // namespace

RegistrationHandles::RegistrationHandles(const std::vector<const clang::FunctionDecl*>& functions,
                                         const clang::ASTContext& context,
                                         ExternalDefinitions* external)
    : context_(context), external_(external) {
  for (const clang::FunctionDecl* function : functions)
    forEachStatement(function->getBody(), [&](const clang::Stmt& stmt) {
      if (const auto* assign = llvm::dyn_cast<clang::BinaryOperator>(&stmt);
          assign && assign->getOpcode() == clang::BO_Assign) {
        const clang::Expr* target = assign->getLHS()->IgnoreParenImpCasts();
        if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(target))
          learn(member->getMemberDecl(), *assign->getRHS(), *function);
        else if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(target))
          learn(reference->getDecl(), *assign->getRHS(), *function);
      } else if (const auto* declaration = llvm::dyn_cast<clang::DeclStmt>(&stmt)) {
        for (const clang::Decl* decl : declaration->decls())
          if (const auto* variable = llvm::dyn_cast<clang::VarDecl>(decl);
              variable && variable->getInit())
            learn(variable, *variable->getInit(), *function);
      }
    });
}

void RegistrationHandles::learn(const clang::Decl* handle, const clang::Expr& value,
                                const clang::FunctionDecl& function) {
  const clang::Expr* pointer = registeredPointer(&value, context_, external_);
  if (!pointer) return;
  const auto* member = llvm::dyn_cast<clang::MemberExpr>(pointer);
  const auto* local =
      member ? nullptr
             : llvm::dyn_cast<clang::VarDecl>(llvm::cast<clang::DeclRefExpr>(pointer)->getDecl());
  if (const auto* field = llvm::dyn_cast<clang::FieldDecl>(handle)) {
    const std::string kept = member  ? "." + member->getMemberDecl()->getNameAsString()
                             : local ? fieldKeeping(function.getBody(), *local)
                                     : std::string();
    if (!kept.empty()) fieldHandles_[field] = kept;
  } else if (const auto* variable = llvm::dyn_cast<clang::VarDecl>(handle);
             variable && variable->hasLocalStorage()) {
    localHandles_[variable] =
        member
            ? RegisteredMemory{member->getBase(), "." + member->getMemberDecl()->getNameAsString()}
            : RegisteredMemory{pointer, ""};
  }
}

std::optional<RegisteredMemory>
RegistrationHandles::memoryOf(const clang::Expr& argument,
                              const clang::FunctionDecl* function) const {
  const clang::Expr* handle = argument.IgnoreParenCasts();
  if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(handle)) {
    const auto* field = llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
    auto found = field ? fieldHandles_.find(field) : fieldHandles_.end();
    if (found == fieldHandles_.end()) return std::nullopt;
    return RegisteredMemory{member->getBase(), found->second};
  }
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(handle);
  const auto* variable = reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
  auto found = variable ? localHandles_.find(variable) : localHandles_.end();
  if (found == localHandles_.end() || variable->getDeclContext() != function) return std::nullopt;
  return found->second;
}

} // namespace streamrace::analyzer
