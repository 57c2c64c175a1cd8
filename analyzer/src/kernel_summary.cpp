// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/analyzer/kernel_summary.h"

#include "streamrace/api_model/kernel_access.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <memory>
#include <set>

namespace streamrace::analyzer {
namespace {

ParamAccess merge(ParamAccess a, ParamAccess b) {
  if (a == ParamAccess::None) return b;
  if (b == ParamAccess::None || a == b) return a;
  return ParamAccess::ReadWrite;
}

// CUDA's atomic read-modify-write functions (and their _block/_system scopes).
bool isAtomicFunction(const clang::FunctionDecl* function) {
  if (!function || !function->getDeclName().isIdentifier()) return false;
  const llvm::StringRef name = function->getName();
  for (llvm::StringRef operation :
       {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc", "atomicDec",
        "atomicCAS", "atomicAnd", "atomicOr", "atomicXor"})
    if (name == operation || name == (operation + "_block").str() ||
        name == (operation + "_system").str())
      return true;
  return false;
}

// How the memory a pointer-valued expression points to is used by its surroundings.
class KernelBodyScanner : public clang::RecursiveASTVisitor<KernelBodyScanner> {
public:
  KernelBodyScanner(const clang::FunctionDecl& kernel, const clang::ASTContext& context)
      : kernel_(kernel), context_(context), parents_(kernel.getBody()) {
    for (unsigned i = 0; i < kernel.getNumParams(); ++i) {
      const clang::ParmVarDecl* param = kernel.getParamDecl(i);
      if (param->getType()->isPointerType()) origin_[param] = i;
    }
    access_.assign(kernel.getNumParams(), ParamAccess::None);
    extent_.assign(kernel.getNumParams(), std::nullopt);
    unbounded_.assign(kernel.getNumParams(), false);
  }

  // Pointers derived from a parameter (`float* row = x + offset;`) stand for that parameter.
  bool VisitVarDecl(clang::VarDecl* var) {
    if (!var->getType()->isPointerType() || !var->getInit()) return true;
    if (auto param = derivedParameter(var->getInit())) origin_[var] = *param;
    return true;
  }

  bool VisitDeclRefExpr(clang::DeclRefExpr* reference) {
    auto found = origin_.find(reference->getDecl());
    if (found == origin_.end()) return true;
    const unsigned param = found->second;
    const ParamAccess use = useOf(reference);
    access_[param] = merge(access_[param], use);
    if (use == ParamAccess::None) return true;
    // Every access must be bounded by the same count for the parameter to have an extent.
    std::optional<ParamExtent> extent;
    if (reference->getDecl() == kernel_.getParamDecl(param)) extent = guardedElement(*reference);
    if (!extent || (extent_[param] && *extent_[param] != *extent)) unbounded_[param] = true;
    extent_[param] = extent;
    return true;
  }

  std::vector<ParamAccess> takeAccess() { return std::move(access_); }

  std::vector<std::optional<ParamExtent>> takeExtents() {
    for (std::size_t i = 0; i < extent_.size(); ++i)
      if (unbounded_[i]) extent_[i] = std::nullopt;
    return std::move(extent_);
  }

private:
  std::optional<unsigned> derivedParameter(const clang::Expr* expr) {
    expr = expr->IgnoreParenCasts();
    if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expr))
      if (binary->isAdditiveOp())
        return derivedParameter(binary->getLHS()->getType()->isPointerType() ? binary->getLHS()
                                                                             : binary->getRHS());
    if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr))
      if (auto found = origin_.find(reference->getDecl()); found != origin_.end())
        return found->second;
    return std::nullopt;
  }

  // The pointer value flows up through casts and pointer arithmetic; the first dereference
  // decides read or write; anything else (a call, an escape into memory) counts as both.
  ParamAccess useOf(const clang::Expr* pointer) {
    const clang::Stmt* current = pointer;
    const clang::Stmt* parent = parentOf(current);
    while (parent) {
      if (llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr, clang::CStyleCastExpr,
                    clang::CXXNamedCastExpr>(parent)) {
        current = parent;
        parent = parentOf(current);
        continue;
      }
      if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(parent)) {
        if (binary->isAdditiveOp()) {
          current = parent;
          parent = parentOf(current);
          continue;
        }
        if (binary->isComparisonOp()) return ParamAccess::None;
        if (binary->getOpcode() == clang::BO_Assign && binary->getLHS() != current)
          return llvm::isa<clang::DeclRefExpr>(binary->getLHS()->IgnoreParenCasts())
                     ? ParamAccess::None // re-pointing a local: VisitVarDecl-style aliasing
                     : ParamAccess::ReadWrite;
      }
      if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(parent))
        return subscript->getBase() == current ? accessOfElement(subscript) : ParamAccess::None;
      if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(parent))
        if (unary->getOpcode() == clang::UO_Deref) return accessOfElement(unary);
      if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(parent))
        if (member->isArrow()) return accessOfElement(member);
      if (isAtomicTarget(current, parent)) return ParamAccess::Atomic;
      if (llvm::isa<clang::DeclStmt>(parent)) return ParamAccess::None;
      return ParamAccess::ReadWrite;
    }
    return ParamAccess::None;
  }

  // An lvalue naming pointed-to memory: written when assigned, read when loaded.
  ParamAccess accessOfElement(const clang::Expr* element) {
    const clang::Stmt* current = element;
    const clang::Stmt* parent = parentOf(current);
    while (parent && (llvm::isa<clang::ParenExpr, clang::MemberExpr>(parent) ||
                      (llvm::isa<clang::ArraySubscriptExpr>(parent) &&
                       llvm::cast<clang::ArraySubscriptExpr>(parent)->getBase() == current))) {
      current = parent;
      parent = parentOf(current);
    }
    if (!parent) return ParamAccess::Read;
    if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(parent))
      return cast->getCastKind() == clang::CK_LValueToRValue ? ParamAccess::Read
                                                             : ParamAccess::ReadWrite;
    if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(parent)) {
      if (binary->getLHS() != current) return ParamAccess::Read;
      if (binary->getOpcode() == clang::BO_Assign) return ParamAccess::Write;
      if (binary->isCompoundAssignmentOp()) return ParamAccess::ReadWrite;
      return ParamAccess::Read;
    }
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(parent)) {
      if (unary->getOpcode() == clang::UO_AddrOf) {
        // `atomicAdd(&bins[k], 1)`: the element's address goes straight into an atomic.
        const clang::Stmt* address = unary;
        const clang::Stmt* user = parentOf(address);
        while (user && llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr>(user)) {
          address = user;
          user = parentOf(address);
        }
        return isAtomicTarget(address, user) ? ParamAccess::Atomic : ParamAccess::ReadWrite;
      }
      return unary->isIncrementDecrementOp() ? ParamAccess::ReadWrite : ParamAccess::Read;
    }
    return ParamAccess::ReadWrite;
  }

  // Whether `address` is the target (first argument) of an atomic call `user`.
  static bool isAtomicTarget(const clang::Stmt* address, const clang::Stmt* user) {
    const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(user);
    return call && call->getNumArgs() > 0 && call->getArg(0) == address &&
           isAtomicFunction(call->getDirectCallee());
  }

  const clang::Stmt* parentOf(const clang::Stmt* stmt) {
    return parents_.getParent(const_cast<clang::Stmt*>(stmt));
  }

  // `p[i]` with `i < n` guarding it, n an integer parameter: the extent n elements of *p.
  std::optional<ParamExtent> guardedElement(const clang::DeclRefExpr& pointer) {
    const clang::Stmt* current = &pointer;
    const clang::Stmt* parent = parentOf(current);
    while (parent && llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr>(parent)) {
      current = parent;
      parent = parentOf(current);
    }
    const auto* subscript = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(parent);
    if (!subscript || subscript->getBase() != current) return std::nullopt;
    const clang::QualType element = subscript->getType();
    if (element->isIncompleteType() || element->isDependentType()) return std::nullopt;
    const auto* index =
        llvm::dyn_cast<clang::DeclRefExpr>(subscript->getIdx()->IgnoreParenImpCasts());
    const auto* variable = index ? llvm::dyn_cast<clang::VarDecl>(index->getDecl()) : nullptr;
    if (!variable || !variable->getType()->isIntegerType()) return std::nullopt;
    const std::optional<unsigned> count = guardOf(*subscript, *variable);
    if (!count) return std::nullopt;
    return ParamExtent{*count, context_.getTypeSizeInChars(element).getQuantity()};
  }

  // The integer parameter n of a guard `variable < n` that every execution of `stmt` passes.
  std::optional<unsigned> guardOf(const clang::Stmt& stmt, const clang::VarDecl& variable) {
    const clang::Stmt* child = &stmt;
    for (const clang::Stmt* ancestor = parentOf(child); ancestor;
         child = ancestor, ancestor = parentOf(child)) {
      std::optional<unsigned> bound;
      if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(ancestor);
          branch && branch->getThen() == child)
        bound = boundIn(branch->getCond(), variable, clang::BO_LAnd);
      else if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(ancestor);
               loop && loop->getBody() == child)
        bound = boundIn(loop->getCond(), variable, clang::BO_LAnd);
      else if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(ancestor);
               loop && loop->getBody() == child)
        bound = boundIn(loop->getCond(), variable, clang::BO_LAnd);
      else if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(ancestor))
        bound = earlyReturnBound(*block, *child, variable);
      if (bound) return bound;
    }
    return std::nullopt;
  }

  // An `if (variable >= n) return;` (or `|| ...`) among the statements of `block` before `child`.
  std::optional<unsigned> earlyReturnBound(const clang::CompoundStmt& block,
                                           const clang::Stmt& child,
                                           const clang::VarDecl& variable) {
    for (const clang::Stmt* statement : block.body()) {
      if (statement == &child) return std::nullopt;
      const auto* branch = llvm::dyn_cast<clang::IfStmt>(statement);
      if (!branch || branch->getElse()) continue;
      const clang::Stmt* then = branch->getThen();
      if (const auto* inner = llvm::dyn_cast<clang::CompoundStmt>(then);
          inner && inner->size() == 1)
        then = inner->body_front();
      if (!llvm::isa<clang::ReturnStmt>(then)) continue;
      if (auto bound = boundIn(branch->getCond(), variable, clang::BO_LOr, true)) return bound;
    }
    return std::nullopt;
  }

  // In `condition`, a comparison that bounds `variable` below an integer parameter n: `i < n`
  // (`!exits`) or `i >= n` (`exits`), or either side of the `junction` (&& to pass, || to exit).
  std::optional<unsigned> boundIn(const clang::Expr* condition, const clang::VarDecl& variable,
                                  clang::BinaryOperatorKind junction, bool exits = false) {
    const auto* binary =
        condition ? llvm::dyn_cast<clang::BinaryOperator>(condition->IgnoreParenImpCasts())
                  : nullptr;
    if (!binary) return std::nullopt;
    if (binary->getOpcode() == junction) {
      if (auto bound = boundIn(binary->getLHS(), variable, junction, exits)) return bound;
      return boundIn(binary->getRHS(), variable, junction, exits);
    }
    const clang::BinaryOperatorKind below = exits ? clang::BO_GE : clang::BO_LT;
    const clang::BinaryOperatorKind above = exits ? clang::BO_LE : clang::BO_GT;
    if (binary->getOpcode() == below && names(binary->getLHS(), variable))
      return countParameter(binary->getRHS());
    if (binary->getOpcode() == above && names(binary->getRHS(), variable))
      return countParameter(binary->getLHS());
    return std::nullopt;
  }

  static bool names(const clang::Expr* expr, const clang::VarDecl& variable) {
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
    return reference && reference->getDecl() == &variable;
  }

  std::optional<unsigned> countParameter(const clang::Expr* expr) const {
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
    if (!reference) return std::nullopt;
    for (unsigned i = 0; i < kernel_.getNumParams(); ++i)
      if (reference->getDecl() == kernel_.getParamDecl(i) &&
          kernel_.getParamDecl(i)->getType()->isIntegerType())
        return i;
    return std::nullopt;
  }

  const clang::FunctionDecl& kernel_;
  const clang::ASTContext& context_;
  clang::ParentMap parents_;
  std::map<const clang::Decl*, unsigned> origin_;
  std::vector<ParamAccess> access_;
  std::vector<std::optional<ParamExtent>> extent_;
  std::vector<bool> unbounded_;
};

class KernelCollector : public clang::RecursiveASTVisitor<KernelCollector> {
public:
  explicit KernelCollector(clang::ASTContext& context)
      : context_(context), mangler_(context.createMangleContext()) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  // Library kernels (thrust, cub) are not the program's: skipping system headers keeps the walk
  // proportional to the user's code.
  bool TraverseDecl(clang::Decl* decl) {
    if (decl && !llvm::isa<clang::TranslationUnitDecl>(decl) &&
        context_.getSourceManager().isInSystemHeader(decl->getLocation()))
      return true;
    return clang::RecursiveASTVisitor<KernelCollector>::TraverseDecl(decl);
  }

  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    if (!function->hasAttr<clang::CUDAGlobalAttr>() || !function->doesThisDeclarationHaveABody() ||
        function->isDependentContext())
      return true;
    KernelSummary summary;
    summary.name = function->getQualifiedNameAsString();
    summary.mangledName = mangledName(*function);
    for (const clang::ParmVarDecl* param : function->parameters())
      summary.paramNames.push_back(param->getNameAsString());
    KernelBodyScanner scanner(*function, context_);
    scanner.TraverseStmt(function->getBody());
    summary.paramAccess = scanner.takeAccess();
    summary.paramExtent = scanner.takeExtents();
    summaries_[function->getCanonicalDecl()] = std::move(summary);
    return true;
  }

  KernelSummaries takeSummaries() { return std::move(summaries_); }

private:
  std::string mangledName(const clang::FunctionDecl& function) {
    if (!mangler_->shouldMangleDeclName(&function)) return function.getNameAsString();
    std::string name;
    llvm::raw_string_ostream stream(name);
    mangler_->mangleName(clang::GlobalDecl(&function, clang::KernelReferenceKind::Kernel), stream);
    return name;
  }

  clang::ASTContext& context_;
  std::unique_ptr<clang::MangleContext> mangler_;
  KernelSummaries summaries_;
};

} // namespace

// The words come from the contract the tracer reads them by (api_model/kernel_access.h).
const char* paramAccessName(ParamAccess access) {
  using api_model::kernel_access::ParameterAccess;
  using api_model::kernel_access::summary_word;
  switch (access) {
  case ParamAccess::None:
    return summary_word(ParameterAccess::None).data();
  case ParamAccess::Read:
    return summary_word(ParameterAccess::Read).data();
  case ParamAccess::Write:
    return summary_word(ParameterAccess::Write).data();
  case ParamAccess::ReadWrite:
  case ParamAccess::Atomic: // the access the tracer knows; the summary adds kParamAtomicKey
    return summary_word(ParameterAccess::ReadWrite).data();
  }
  return summary_word(ParameterAccess::None).data();
}

KernelSummaries summarizeKernels(clang::ASTContext& context) {
  KernelCollector collector(context);
  collector.TraverseDecl(context.getTranslationUnitDecl());
  return collector.takeSummaries();
}

llvm::json::Value kernelSummariesToJson(const std::vector<KernelSummary>& kernels) {
  namespace ka = api_model::kernel_access;
  llvm::json::Array array;
  for (const KernelSummary& kernel : kernels) {
    llvm::json::Array params;
    for (std::size_t i = 0; i < kernel.paramAccess.size(); ++i) {
      llvm::json::Object param{{ka::kParamIndexKey, static_cast<int64_t>(i)},
                               {ka::kParamNameKey, kernel.paramNames[i]},
                               {ka::kParamAccessKey, paramAccessName(kernel.paramAccess[i])}};
      if (kernel.paramAccess[i] == ParamAccess::Atomic) param[ka::kParamAtomicKey] = true;
      if (i < kernel.paramExtent.size() && kernel.paramExtent[i]) {
        param[ka::kParamCountParamKey] = static_cast<int64_t>(kernel.paramExtent[i]->countParam);
        param[ka::kParamElementBytesKey] = kernel.paramExtent[i]->elementBytes;
      }
      params.push_back(std::move(param));
    }
    array.push_back(llvm::json::Object{{ka::kKernelNameKey, kernel.name},
                                       {ka::kMangledNameKey, kernel.mangledName},
                                       {ka::kParamsKey, std::move(params)}});
  }
  return llvm::json::Object{{ka::kVersionKey, ka::kSummariesVersion},
                            {ka::kKernelsKey, std::move(array)}};
}

} // namespace streamrace::analyzer
