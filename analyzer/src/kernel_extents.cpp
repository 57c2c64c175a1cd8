// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How far past each pointer a kernel's uses reach: counts its guards bound, the thread's grid
// index, rows of a 2-D grid, constant offsets; and the flags every use is made under.
#include "kernel_body_scanner.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecordLayout.h"

#include <algorithm>

namespace streamrace::analyzer::kernel_scan {
namespace {

ParamExtent countExtent(unsigned param, std::optional<std::int64_t> offset, std::int64_t bytes) {
  ParamExtent extent;
  extent.countParam = param;
  extent.countOffset = offset;
  extent.countBytes = bytes;
  return extent;
}

} // namespace

std::optional<ParamExtent> KernelBodyScanner::extentOf(const clang::Expr& pointer,
                                                       const Origin& origin) {
  const clang::Stmt* current = &pointer;
  const clang::Stmt* parent = parentOf(current);
  while (parent && llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr>(parent)) {
    current = parent;
    parent = parentOf(current);
  }
  if (const auto* subscript = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(parent))
    return subscript->getBase() == current ? elementExtent(*subscript, origin) : std::nullopt;
  if (const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent);
      unary && unary->getOpcode() == clang::UO_Deref)
    return fixedBytes(unary->getType(), 1);
  if (const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(parent);
      member && member->isArrow())
    return fixedBytes(member->getBase()->getType()->getPointeeType(), 1);
  if (const CalleeParam* callee = calleeParam(current, parent);
      callee && callee->extent && callee->extent->kind != ParamExtent::Kind::Count &&
      callee->extent->kind != ParamExtent::Kind::Rows)
    return callee->extent; // a count or rows would name the callee's parameters, not ours
  return std::nullopt;
}

std::optional<ParamExtent> KernelBodyScanner::fixedBytes(clang::QualType element,
                                                         std::int64_t elements) const {
  if (element.isNull() || element->isIncompleteType() || element->isDependentType())
    return std::nullopt;
  ParamExtent extent;
  extent.kind = ParamExtent::Kind::Bytes;
  extent.elementBytes = elements * context_.getTypeSizeInChars(element).getQuantity();
  return extent;
}

std::optional<ParamExtent>
KernelBodyScanner::elementExtent(const clang::ArraySubscriptExpr& subscript, const Origin& origin) {
  const clang::QualType element = subscript.getType();
  if (element->isIncompleteType() || element->isDependentType()) return std::nullopt;
  const clang::Expr* index = subscript.getIdx()->IgnoreParenImpCasts();
  if (clang::Expr::EvalResult constant;
      !index->isValueDependent() && index->EvaluateAsInt(constant, context_)) {
    const llvm::APSInt& value = constant.Val.getInt();
    if (value.isNegative() || value.getActiveBits() > 31) return std::nullopt;
    return fixedBytes(element, value.getExtValue() + 1);
  }
  std::optional<ParamExtent> extent;
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(index);
  const auto* variable = reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
  if (variable && variable->getType()->isIntegerType())
    extent = guardOf(subscript, *variable, origin);
  if (!extent && (isGridIndex(index) || (variable && isGridIndexVariable(*variable)))) {
    extent = ParamExtent{};
    extent->kind = ParamExtent::Kind::Threads;
  }
  if (!extent && !origin.field) extent = rowsExtent(subscript, *index);
  if (extent) extent->elementBytes = context_.getTypeSizeInChars(element).getQuantity();
  return extent;
}

bool KernelBodyScanner::isGridIndex(const clang::Expr* expr) {
  expr = expr->IgnoreParenCasts();
  if (isBuiltin(expr, "threadIdx")) return true;
  std::optional<unsigned> param;
  std::int64_t start = 0;
  return gridStart(expr, "x", param, start) && !param && start == 0;
}

bool KernelBodyScanner::isBuiltin(const clang::Expr* expr, llvm::StringRef variable,
                                  llvm::StringRef dimension) {
  expr = expr->IgnoreParenCasts();
  if (const auto* pseudo = llvm::dyn_cast<clang::PseudoObjectExpr>(expr))
    expr = pseudo->getSyntacticForm()->IgnoreParenCasts();
  const clang::Expr* base = nullptr;
  const clang::NamedDecl* component = nullptr;
  if (const auto* property = llvm::dyn_cast<clang::MSPropertyRefExpr>(expr)) {
    base = property->getBaseExpr();
    component = property->getPropertyDecl();
  } else if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(expr)) {
    base = member->getBase();
    component = member->getMemberDecl();
  }
  if (!base || !component || !component->getDeclName().isIdentifier() ||
      component->getName() != dimension)
    return false;
  base = base->IgnoreParenCasts();
  if (const auto* opaque = llvm::dyn_cast<clang::OpaqueValueExpr>(base);
      opaque && opaque->getSourceExpr())
    base = opaque->getSourceExpr()->IgnoreParenCasts();
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(base);
  const auto* declared = reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
  return declared && declared->getDeclName().isIdentifier() && declared->getName() == variable;
}

std::optional<ParamExtent> KernelBodyScanner::rowsExtent(const clang::ArraySubscriptExpr& subscript,
                                                         const clang::Expr& index) {
  std::vector<std::pair<const clang::Expr*, bool>> terms; // each with its sign: true is minus
  splitSum(&index, false, terms);
  const clang::VarDecl* row = nullptr;
  const clang::VarDecl* column = nullptr;
  std::optional<unsigned> width;
  std::int64_t rowShift = 0, columnShift = 0;
  for (const auto& [term, negated] : terms) {
    if (std::optional<std::int64_t> constant = integerConstant(term)) {
      columnShift += negated ? -*constant : *constant;
    } else if (const auto* product = llvm::dyn_cast<clang::BinaryOperator>(term);
               product && product->getOpcode() == clang::BO_Mul && !negated && !row) {
      for (auto [rowSide, widthSide] : {std::pair{product->getLHS(), product->getRHS()},
                                        std::pair{product->getRHS(), product->getLHS()}}) {
        width = unchangedIntegerParam(widthSide);
        if (!width) continue;
        row = shiftedLocal(rowSide, rowShift);
        if (row) break;
      }
      if (!row) return std::nullopt;
    } else if (const clang::VarDecl* local = localVariable(term); local && !negated && !column) {
      column = local;
    } else {
      return std::nullopt;
    }
  }
  if (!row || !column || !width) return std::nullopt;
  std::optional<unsigned> firstRow;
  std::int64_t rowStart = 0, columnStart = 0;
  if (!gridStart(row->getInit(), "y", firstRow, rowStart) || !firstRow || rowStart != 0)
    return std::nullopt;
  std::optional<unsigned> noParam;
  if (!gridStart(column->getInit(), "x", noParam, columnStart) || noParam) return std::nullopt;
  const std::optional<GridGuard> guard = gridGuard(subscript, *row, *column, *width);
  // The column stays inside its row: from columnStart + shift up to width - k - 1 + shift.
  if (!guard || columnStart + columnShift < 0 || columnShift > guard->columnSlack)
    return std::nullopt;
  ParamExtent extent;
  extent.kind = ParamExtent::Kind::Rows;
  extent.firstRowParam = *firstRow;
  extent.endRowParam = guard->endRowParam;
  extent.widthParam = *width;
  extent.rowsBefore = std::max<std::int64_t>(0, -rowShift);
  extent.rowsAfter = std::max<std::int64_t>(0, rowShift);
  return extent;
}

void KernelBodyScanner::splitSum(const clang::Expr* expr, bool negated,
                                 std::vector<std::pair<const clang::Expr*, bool>>& terms) {
  expr = expr->IgnoreParenImpCasts();
  if (const auto* sum = llvm::dyn_cast<clang::BinaryOperator>(expr);
      sum && (sum->getOpcode() == clang::BO_Add || sum->getOpcode() == clang::BO_Sub)) {
    splitSum(sum->getLHS(), negated, terms);
    splitSum(sum->getRHS(), sum->getOpcode() == clang::BO_Sub ? !negated : negated, terms);
    return;
  }
  terms.emplace_back(expr, negated);
}

std::optional<std::int64_t> KernelBodyScanner::integerConstant(const clang::Expr* expr) const {
  clang::Expr::EvalResult constant;
  if (expr->isValueDependent() || !expr->EvaluateAsInt(constant, context_)) return std::nullopt;
  if (constant.Val.getInt().getActiveBits() > 31) return std::nullopt;
  return constant.Val.getInt().getExtValue();
}

const clang::VarDecl* KernelBodyScanner::localVariable(const clang::Expr* expr) {
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
  const auto* variable = reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
  if (!variable || llvm::isa<clang::ParmVarDecl>(variable) || !variable->hasLocalStorage() ||
      !variable->getType()->isIntegerType() || !variable->getInit() || isChanged(*variable))
    return nullptr;
  return variable;
}

const clang::VarDecl* KernelBodyScanner::shiftedLocal(const clang::Expr* expr,
                                                      std::int64_t& shift) {
  std::vector<std::pair<const clang::Expr*, bool>> terms;
  splitSum(expr, false, terms);
  const clang::VarDecl* local = nullptr;
  shift = 0;
  for (const auto& [term, negated] : terms) {
    if (std::optional<std::int64_t> constant = integerConstant(term))
      shift += negated ? -*constant : *constant;
    else if (const clang::VarDecl* found = localVariable(term); found && !negated && !local)
      local = found;
    else
      return nullptr;
  }
  return local;
}

std::optional<unsigned> KernelBodyScanner::unchangedIntegerParam(const clang::Expr* expr) {
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
  const auto* param =
      reference ? llvm::dyn_cast<clang::ParmVarDecl>(reference->getDecl()) : nullptr;
  if (!param || !param->getType()->isIntegerType() || isChanged(*param)) return std::nullopt;
  return param->getFunctionScopeIndex();
}

bool KernelBodyScanner::gridStart(const clang::Expr* expr, llvm::StringRef dimension,
                                  std::optional<unsigned>& param, std::int64_t& start) {
  std::vector<std::pair<const clang::Expr*, bool>> terms;
  splitSum(expr, false, terms);
  bool thread = false, block = false;
  start = 0;
  for (const auto& [term, negated] : terms) {
    if (negated) return false;
    if (std::optional<std::int64_t> constant = integerConstant(term)) {
      start += *constant;
    } else if (isBuiltin(term, "threadIdx", dimension) && !thread) {
      thread = true;
    } else if (const auto* product =
                   llvm::dyn_cast<clang::BinaryOperator>(term->IgnoreParenCasts());
               product && product->getOpcode() == clang::BO_Mul && !block &&
               ((isBuiltin(product->getLHS(), "blockIdx", dimension) &&
                 isBuiltin(product->getRHS(), "blockDim", dimension)) ||
                (isBuiltin(product->getLHS(), "blockDim", dimension) &&
                 isBuiltin(product->getRHS(), "blockIdx", dimension)))) {
      block = true;
    } else if (std::optional<unsigned> found = unchangedIntegerParam(term); found && !param) {
      param = found;
    } else {
      return false;
    }
  }
  return thread && block && start >= 0;
}

std::optional<KernelBodyScanner::GridGuard>
KernelBodyScanner::gridGuard(const clang::Stmt& stmt, const clang::VarDecl& row,
                             const clang::VarDecl& column, unsigned width) {
  const clang::Stmt* child = &stmt;
  for (const clang::Stmt* ancestor = parentOf(child); ancestor;
       child = ancestor, ancestor = parentOf(child)) {
    const auto* branch = llvm::dyn_cast<clang::IfStmt>(ancestor);
    if (!branch || branch->getThen() != child) continue;
    std::vector<const clang::Expr*> tests;
    conjuncts(branch->getCond(), tests);
    std::optional<unsigned> end;
    std::optional<std::int64_t> slack;
    for (const clang::Expr* test : tests) {
      const auto* less = llvm::dyn_cast<clang::BinaryOperator>(test);
      if (!less || less->getOpcode() != clang::BO_LT) continue;
      std::int64_t shift = 0;
      const clang::VarDecl* tested = shiftedLocal(less->getLHS(), shift);
      if (!tested || shift != 0) continue;
      if (tested == &row) end = unchangedIntegerParam(less->getRHS());
      if (tested != &column) continue;
      std::vector<std::pair<const clang::Expr*, bool>> terms;
      splitSum(less->getRHS(), false, terms);
      std::int64_t constant = 0;
      bool named = false, other = false;
      for (const auto& [term, negated] : terms) {
        if (std::optional<std::int64_t> value = integerConstant(term))
          constant += negated ? -*value : *value;
        else if (unchangedIntegerParam(term) == width && !negated && !named)
          named = true;
        else
          other = true;
      }
      if (named && !other && constant <= 0) slack = -constant;
    }
    if (end && slack) return GridGuard{*end, *slack};
  }
  return std::nullopt;
}

void KernelBodyScanner::conjuncts(const clang::Expr* test, std::vector<const clang::Expr*>& out) {
  test = test->IgnoreParenImpCasts();
  if (const auto* both = llvm::dyn_cast<clang::BinaryOperator>(test);
      both && both->getOpcode() == clang::BO_LAnd) {
    conjuncts(both->getLHS(), out);
    conjuncts(both->getRHS(), out);
    return;
  }
  out.push_back(test);
}

bool KernelBodyScanner::isGridIndexVariable(const clang::VarDecl& variable) {
  if (!variable.hasLocalStorage() || !variable.getInit() || !isGridIndex(variable.getInit()))
    return false;
  auto known = gridIndexVariables_.find(&variable);
  if (known != gridIndexVariables_.end()) return known->second;
  return gridIndexVariables_[&variable] = !isChanged(variable);
}

std::optional<unsigned> KernelBodyScanner::guardingFlag(const clang::Stmt& use) {
  const clang::Stmt* child = &use;
  for (const clang::Stmt* parent = parentOf(child); parent;
       child = parent, parent = parentOf(parent)) {
    const auto* branch = llvm::dyn_cast<clang::IfStmt>(parent);
    if (!branch || branch->getThen() != child) continue;
    if (std::optional<unsigned> flag = testedFlag(branch->getCond())) return flag;
  }
  return std::nullopt;
}

std::optional<unsigned> KernelBodyScanner::testedFlag(const clang::Expr* test) {
  test = test->IgnoreParenImpCasts();
  if (const auto* both = llvm::dyn_cast<clang::BinaryOperator>(test);
      both && both->getOpcode() == clang::BO_LAnd) {
    if (std::optional<unsigned> flag = testedFlag(both->getLHS())) return flag;
    return testedFlag(both->getRHS());
  }
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(test);
  const auto* param =
      reference ? llvm::dyn_cast<clang::ParmVarDecl>(reference->getDecl()) : nullptr;
  if (!param || !param->getType()->isBooleanType() || isChanged(*param)) return std::nullopt;
  return param->getFunctionScopeIndex();
}

bool KernelBodyScanner::isChanged(const clang::VarDecl& variable) {
  class Writes : public clang::RecursiveASTVisitor<Writes> {
  public:
    Writes(const clang::VarDecl& variable, KernelBodyScanner& scanner)
        : variable_(variable), scanner_(scanner) {}
    bool VisitDeclRefExpr(clang::DeclRefExpr* reference) {
      if (reference->getDecl() != &variable_) return true;
      const clang::Stmt* parent = scanner_.parentOf(reference);
      while (
          parent && llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr>(parent) &&
          !(llvm::isa<clang::ImplicitCastExpr>(parent) &&
            llvm::cast<clang::ImplicitCastExpr>(parent)->getCastKind() == clang::CK_LValueToRValue))
        parent = scanner_.parentOf(parent);
      if (const auto* binary = llvm::dyn_cast_or_null<clang::BinaryOperator>(parent))
        changed = changed || binary->isAssignmentOp();
      if (const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent))
        changed =
            changed || unary->isIncrementDecrementOp() || unary->getOpcode() == clang::UO_AddrOf;
      return true;
    }
    bool changed = false;

  private:
    const clang::VarDecl& variable_;
    KernelBodyScanner& scanner_;
  } writes(variable, *this);
  writes.TraverseStmt(kernel_.getBody());
  return writes.changed;
}

const CalleeParam* KernelBodyScanner::calleeParam(const clang::Stmt* argument,
                                                  const clang::Stmt* parent) {
  const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(parent);
  const clang::FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
  if (!callee) return nullptr;
  for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i)
    if (call->getArg(i) == argument) {
      const std::vector<CalleeParam>* params = callees_.find(*callee);
      return params && i < params->size() ? &(*params)[i] : nullptr;
    }
  return nullptr;
}

std::optional<ParamExtent> KernelBodyScanner::guardOf(const clang::Stmt& stmt,
                                                      const clang::VarDecl& variable,
                                                      const Origin& origin) {
  const clang::Stmt* child = &stmt;
  for (const clang::Stmt* ancestor = parentOf(child); ancestor;
       child = ancestor, ancestor = parentOf(child)) {
    std::optional<ParamExtent> bound;
    if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(ancestor);
        branch && branch->getThen() == child)
      bound = boundIn(branch->getCond(), variable, origin, clang::BO_LAnd);
    else if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(ancestor);
             loop && loop->getBody() == child)
      bound = boundIn(loop->getCond(), variable, origin, clang::BO_LAnd);
    else if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(ancestor);
             loop && loop->getBody() == child)
      bound = boundIn(loop->getCond(), variable, origin, clang::BO_LAnd);
    else if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(ancestor))
      bound = earlyReturnBound(*block, *child, variable, origin);
    if (bound) return bound;
  }
  return std::nullopt;
}

std::optional<ParamExtent> KernelBodyScanner::earlyReturnBound(const clang::CompoundStmt& block,
                                                               const clang::Stmt& child,
                                                               const clang::VarDecl& variable,
                                                               const Origin& origin) {
  for (const clang::Stmt* statement : block.body()) {
    if (statement == &child) return std::nullopt;
    const auto* branch = llvm::dyn_cast<clang::IfStmt>(statement);
    if (!branch || branch->getElse()) continue;
    const clang::Stmt* then = branch->getThen();
    if (const auto* inner = llvm::dyn_cast<clang::CompoundStmt>(then); inner && inner->size() == 1)
      then = inner->body_front();
    if (!llvm::isa<clang::ReturnStmt>(then)) continue;
    if (auto bound = boundIn(branch->getCond(), variable, origin, clang::BO_LOr, true))
      return bound;
  }
  return std::nullopt;
}

std::optional<ParamExtent>
KernelBodyScanner::boundIn(const clang::Expr* condition, const clang::VarDecl& variable,
                           const Origin& origin, clang::BinaryOperatorKind junction, bool exits) {
  const auto* binary =
      condition ? llvm::dyn_cast<clang::BinaryOperator>(condition->IgnoreParenImpCasts()) : nullptr;
  if (!binary) return std::nullopt;
  if (binary->getOpcode() == junction) {
    if (auto bound = boundIn(binary->getLHS(), variable, origin, junction, exits)) return bound;
    return boundIn(binary->getRHS(), variable, origin, junction, exits);
  }
  const clang::BinaryOperatorKind below = exits ? clang::BO_GE : clang::BO_LT;
  const clang::BinaryOperatorKind above = exits ? clang::BO_LE : clang::BO_GT;
  if (binary->getOpcode() == below && names(binary->getLHS(), variable))
    return countOf(binary->getRHS(), origin);
  if (binary->getOpcode() == above && names(binary->getRHS(), variable))
    return countOf(binary->getLHS(), origin);
  return std::nullopt;
}

bool KernelBodyScanner::names(const clang::Expr* expr, const clang::VarDecl& variable) {
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
  return reference && reference->getDecl() == &variable;
}

std::optional<ParamExtent> KernelBodyScanner::countOf(const clang::Expr* expr,
                                                      const Origin& origin) const {
  expr = expr->IgnoreParenImpCasts();
  if (!expr->getType()->isIntegerType()) return std::nullopt;
  if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr)) {
    for (unsigned i = 0; i < kernel_.getNumParams(); ++i)
      if (reference->getDecl() == kernel_.getParamDecl(i)) return countExtent(i, std::nullopt, 0);
    return std::nullopt;
  }
  const auto chain = memberChain(expr);
  if (!origin.field || !chain || chain->first != origin.param) return std::nullopt;
  std::int64_t offset = 0;
  for (const clang::FieldDecl* field : chain->second)
    offset += static_cast<std::int64_t>(
        context_.getASTRecordLayout(field->getParent()).getFieldOffset(field->getFieldIndex()) /
        context_.getCharWidth());
  return countExtent(origin.param, offset,
                     context_.getTypeSizeInChars(expr->getType()).getQuantity());
}

} // namespace streamrace::analyzer::kernel_scan
