// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "entry_points.h"

#include "element_index.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace streamrace::analyzer {

namespace {

class DirectCallees : public clang::RecursiveASTVisitor<DirectCallees> {
public:
  DirectCallees(std::set<const clang::FunctionDecl*>& called,
                std::set<const clang::FieldDecl*>& flags)
      : called_(called), flags_(flags) {}

  bool VisitBinaryOperator(clang::BinaryOperator* assignment) {
    if (assignment->getOpcode() != clang::BO_Assign) return true;
    const auto* member =
        llvm::dyn_cast<clang::MemberExpr>(assignment->getLHS()->IgnoreParenImpCasts());
    const auto* field =
        member ? llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl()) : nullptr;
    if (field && field->getType()->isBooleanType() &&
        llvm::isa<clang::CXXBoolLiteralExpr>(assignment->getRHS()->IgnoreParenImpCasts()))
      flags_.insert(field);
    return true;
  }

  bool VisitCallExpr(clang::CallExpr* call) {
    if (const clang::FunctionDecl* callee = call->getDirectCallee()) add(callee);
    return true;
  }

  bool VisitCXXConstructExpr(clang::CXXConstructExpr* construction) {
    add(construction->getConstructor());
    return true;
  }

private:
  void add(const clang::FunctionDecl* callee) {
    called_.insert(callee->getCanonicalDecl());
    if (const clang::FunctionDecl* pattern = callee->getTemplateInstantiationPattern())
      called_.insert(pattern->getCanonicalDecl());
  }

  std::set<const clang::FunctionDecl*>& called_;
  std::set<const clang::FieldDecl*>& flags_;
};

class GlobalsNamed : public clang::RecursiveASTVisitor<GlobalsNamed> {
public:
  bool VisitDeclRefExpr(clang::DeclRefExpr* reference) {
    if (const auto* var = llvm::dyn_cast<clang::VarDecl>(reference->getDecl());
        var && var->hasGlobalStorage())
      keys.insert(variableKey(var));
    return true;
  }

  std::set<std::string> keys;
};

} // namespace

EntryPoints::EntryPoints(const std::vector<const clang::FunctionDecl*>& functions) {
  DirectCallees callees(called_, flags_);
  for (const clang::FunctionDecl* function : functions)
    callees.TraverseStmt(function->getBody());
}

bool EntryPoints::calledAgainFromOutside(const clang::FunctionDecl& function) const {
  if (function.isMain() || llvm::isa<clang::CXXConstructorDecl>(function) ||
      llvm::isa<clang::CXXDestructorDecl>(function))
    return false;
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&function);
      method && method->getParent()->isLambda())
    return false;
  const clang::FunctionDecl* pattern = function.getTemplateInstantiationPattern();
  return !called_.contains(function.getCanonicalDecl()) &&
         !(pattern && called_.contains(pattern->getCanonicalDecl()));
}

PersistentRoots persistentRoots(const clang::FunctionDecl& function, const std::string& thisKey) {
  PersistentRoots roots;
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&function);
      method && method->isInstance())
    roots.thisKey = thisKey;
  for (const clang::ParmVarDecl* parameter : function.parameters())
    roots.parameters.insert(variableKey(parameter));
  GlobalsNamed globals;
  globals.TraverseStmt(function.getBody());
  roots.globals = std::move(globals.keys);
  return roots;
}

bool persistentStorage(const std::string& key, const PersistentRoots& roots) {
  const llvm::StringRef text(key);
  const llvm::StringRef root = text.take_until([](char c) { return c == '.' || c == '['; });
  const llvm::StringRef rest = text.drop_front(root.size());
  if (!roots.thisKey.empty() && root == roots.thisKey) return rest.starts_with(".");
  if (roots.parameters.contains(root.str())) return rest.starts_with(".");
  return roots.globals.contains(root.str());
}

} // namespace streamrace::analyzer
