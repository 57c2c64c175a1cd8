// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "function_effects.h"

#include "element_index.h"
#include "external_launchers.h"
#include "sub_statements.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <set>

namespace streamrace::analyzer {
namespace {

// The variable an assignment or a declaration of the flow analysis (re)binds, when its type makes
// the analysis track it: a pointer or reference (aliases), or an integer index variable.
const clang::VarDecl* trackedVariable(const clang::Expr* target) {
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(target->IgnoreParenImpCasts());
  if (!reference) return nullptr;
  const auto* var = llvm::dyn_cast<clang::VarDecl>(reference->getDecl());
  if (!var) return nullptr;
  const clang::QualType type = var->getType();
  if (type->isPointerType() || type->isReferenceType() || indexVariable(target)) return var;
  return nullptr;
}

class BodyScanner {
public:
  BodyScanner(const clang::FunctionDecl& function, clang::ASTContext& context,
              const UserModel* userModel, const KernelSummaries& kernels,
              const CallableTargets& callables, ExternalDefinitions* external)
      : function_(function), context_(context), userModel_(userModel), kernels_(kernels),
        callables_(callables), external_(external) {}

  bool touchesStreams = false;
  std::vector<const clang::FunctionDecl*> callees;
  std::vector<const clang::Expr*> containers;
  std::vector<const clang::ValueDecl*> loopVariables;

  void scanBody(const clang::Stmt* body) {
    visit(body);
    // A loop's array named through a variable whose alias the function itself sets cannot be
    // named from the call: such loops are run in place.
    for (const clang::Expr* container : containers)
      if (namesOwnBinding(container)) opaque = true;
  }

  bool opaque = false;

private:
  bool owns(const clang::VarDecl& var) const {
    return var.hasLocalStorage() &&
           var.getParentFunctionOrMethod() == static_cast<const clang::DeclContext*>(&function_);
  }

  bool namesOwnBinding(const clang::Stmt* stmt) const {
    if (!stmt) return false;
    if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(stmt))
      if (const auto* var = llvm::dyn_cast<clang::VarDecl>(reference->getDecl());
          var && owns(*var)) {
        const clang::QualType type = var->getType();
        const bool bindable = type->isPointerType() || type->isReferenceType();
        if (bindable && (!llvm::isa<clang::ParmVarDecl>(var) || assigned_.contains(var)))
          return true;
      }
    for (const clang::Stmt* child : subStatements(*stmt))
      if (namesOwnBinding(child)) return true;
    return false;
  }

  void visit(const clang::Stmt* stmt) {
    if (!stmt) return;
    inspect(stmt);
    for (const clang::Stmt* child : subStatements(*stmt))
      visit(child);
    // Default arguments and member initializers are not children, but may be analyzed.
    if (const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultArgExpr>(stmt))
      visit(defaulted->getExpr());
    if (const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultInitExpr>(stmt))
      visit(defaulted->getExpr());
  }

  void inspect(const clang::Stmt* stmt) {
    if (llvm::isa<clang::CXXDeleteExpr>(stmt)) {
      touchesStreams = true;
      return;
    }
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(stmt)) {
      const clang::FunctionDecl* callee = call->getDirectCallee();
      if (classifyCall(*call, userModel_, kernels_, context_) ||
          (callee && isExternalLauncher(*callee, context_.getSourceManager(), external_))) {
        touchesStreams = true;
        return;
      }
      if (callee) addCallee(*callee);
      if (const auto* operatorCall = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call))
        for (const clang::CXXMethodDecl* target : callables_.targetsOf(*operatorCall))
          addCallee(*target);
      return;
    }
    if (const auto* construction = llvm::dyn_cast<clang::CXXConstructExpr>(stmt)) {
      addCallee(*construction->getConstructor());
      return;
    }
    if (const auto* declaration = llvm::dyn_cast<clang::DeclStmt>(stmt)) {
      for (const clang::Decl* decl : declaration->decls())
        if (const auto* var = llvm::dyn_cast<clang::VarDecl>(decl))
          if (const clang::CXXRecordDecl* type = var->getType()->getAsCXXRecordDecl())
            if (const clang::CXXDestructorDecl* destructor = type->getDestructor())
              addCallee(*destructor);
      return;
    }
    if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(stmt)) {
      if (!binary->isAssignmentOp()) return;
      if (const clang::VarDecl* var = trackedVariable(binary->getLHS())) {
        if (!owns(*var)) touchesStreams = true;
        if (binary->getOpcode() == clang::BO_Assign) assigned_.insert(var);
      }
      return;
    }
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(stmt)) {
      if (!unary->isIncrementDecrementOp()) return;
      if (const clang::ValueDecl* index = indexVariable(unary->getSubExpr()))
        if (!owns(*llvm::cast<clang::VarDecl>(index))) touchesStreams = true;
      return;
    }
    if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(stmt)) inspectLoopStart(*loop);
  }

  void addCallee(const clang::FunctionDecl& callee) {
    if (const clang::FunctionDecl* definition =
            analyzableDefinition(callee, context_.getSourceManager(), external_))
      callees.push_back(definition);
  }

  // What the flow analysis renames when the loop starts (rebaseIndexVariable).
  void inspectLoopStart(const clang::ForStmt& loop) {
    const clang::Stmt* init = loop.getInit();
    if (!init) return;
    if (const auto* declaration = llvm::dyn_cast<clang::DeclStmt>(init)) {
      for (const clang::Decl* decl : declaration->decls())
        if (const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
            var && var->hasLocalStorage() && var->getType()->isIntegerType() && var->getInit())
          addLoop(loop, var);
      return;
    }
    if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(init);
        binary && binary->getOpcode() == clang::BO_Assign)
      if (const clang::ValueDecl* index = indexVariable(binary->getLHS())) addLoop(loop, index);
  }

  void addLoop(const clang::ForStmt& loop, const clang::ValueDecl* variable) {
    const std::size_t before = containers.size();
    collectContainers(&loop, variable);
    if (containers.size() > before) loopVariables.push_back(variable);
  }

  void collectContainers(const clang::Stmt* stmt, const clang::ValueDecl* variable) {
    if (!stmt) return;
    const auto [base, index] = subscriptOf(stmt);
    if (base && isOffsetOf(index, variable, context_)) containers.push_back(base);
    for (const clang::Stmt* child : subStatements(*stmt))
      collectContainers(child, variable);
  }

  const clang::FunctionDecl& function_;
  clang::ASTContext& context_;
  const UserModel* userModel_;
  const KernelSummaries& kernels_;
  const CallableTargets& callables_;
  ExternalDefinitions* external_;
  std::set<const clang::VarDecl*> assigned_;
};

} // namespace

const clang::FunctionDecl* analyzableDefinition(const clang::FunctionDecl& callee,
                                                const clang::SourceManager& sources,
                                                ExternalDefinitions* external) {
  const clang::FunctionDecl* definition = callee.getDefinition();
  // A library's functions are declared in system headers: only the program's own are looked up.
  if (!definition && external && !callee.isDependentContext() &&
      !sources.isInSystemHeader(callee.getLocation()))
    definition = external->definitionOf(callee);
  if (!definition || !definition->getBody() || definition->isDependentContext() ||
      sources.isInSystemHeader(definition->getLocation()))
    return nullptr;
  return definition;
}

const FunctionEffects::Scan& FunctionEffects::scan(const clang::FunctionDecl& definition) {
  auto [slot, inserted] = scans_.try_emplace(&definition);
  if (!inserted) return slot->second;
  BodyScanner scanner(definition, context_, userModel_, kernels_, callables_, external_);
  scanner.scanBody(definition.getBody());
  Scan& result = slot->second;
  result.touchesStreams = scanner.touchesStreams;
  result.callees = std::move(scanner.callees);
  result.loops.opaque = scanner.opaque;
  result.loops.containers = std::move(scanner.containers);
  result.loops.variables = std::move(scanner.loopVariables);
  return result;
}

bool FunctionEffects::mayTouchStreams(const clang::FunctionDecl& definition) {
  if (auto known = touches_.find(&definition); known != touches_.end()) return known->second;
  // Depth-first over the calls: when nothing reached touches streams, nothing reached from any of
  // the functions visited does either, so they are all known to be inert.
  std::vector<const clang::FunctionDecl*> visited;
  std::set<const clang::FunctionDecl*> seen{&definition};
  std::vector<const clang::FunctionDecl*> stack{&definition};
  bool touches = false;
  while (!stack.empty() && !touches) {
    const clang::FunctionDecl* function = stack.back();
    stack.pop_back();
    visited.push_back(function);
    if (auto known = touches_.find(function); known != touches_.end()) {
      touches = known->second;
      continue;
    }
    const Scan& functionScan = scan(*function);
    touches = functionScan.touchesStreams;
    for (const clang::FunctionDecl* callee : functionScan.callees)
      if (seen.insert(callee).second) stack.push_back(callee);
  }
  if (touches) {
    touches_[&definition] = true;
    return true;
  }
  for (const clang::FunctionDecl* function : visited)
    touches_[function] = false;
  return false;
}

const LoopRenames& FunctionEffects::loopRenames(const clang::FunctionDecl& definition) {
  if (auto known = renames_.find(&definition); known != renames_.end()) return known->second;
  LoopRenames renames = scan(definition).loops;
  // An inert callee's loops rename through the callee's parameters, which this call does not
  // bind: such calls are analyzed in place.
  std::set<const clang::FunctionDecl*> seen{&definition};
  std::vector<const clang::FunctionDecl*> stack = scan(definition).callees;
  while (!stack.empty() && !renames.opaque) {
    const clang::FunctionDecl* function = stack.back();
    stack.pop_back();
    if (!seen.insert(function).second) continue;
    const Scan& functionScan = scan(*function);
    if (!functionScan.loops.empty()) renames.opaque = true;
    stack.insert(stack.end(), functionScan.callees.begin(), functionScan.callees.end());
  }
  return renames_.emplace(&definition, std::move(renames)).first->second;
}

} // namespace streamrace::analyzer
