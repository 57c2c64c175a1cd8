// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "loop_counter.h"

#include "call_model.h"
#include "element_index.h"
#include "handle_types.h"
#include "sub_statements.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"

namespace streamrace::analyzer {
namespace {

// +1 or -1 for `++i`, `i--`, `i += 2`, `i -= 1`; 0 for anything else.
int stepDirection(const clang::Expr* increment, const clang::VarDecl* variable,
                  const clang::ASTContext& context) {
  if (!increment) return 0;
  increment = increment->IgnoreParens();
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(increment))
    if (variableOf(unary->getSubExpr()) == variable && unary->isIncrementDecrementOp())
      return unary->isIncrementOp() ? 1 : -1;
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(increment))
    if (variableOf(binary->getLHS()) == variable) {
      const std::optional<int64_t> step = constantValue(binary->getRHS(), context);
      if (!step || *step <= 0) return 0;
      if (binary->getOpcode() == clang::BO_AddAssign) return 1;
      if (binary->getOpcode() == clang::BO_SubAssign) return -1;
    }
  return 0;
}

bool mentions(const clang::Stmt* stmt, const clang::ValueDecl* variable) {
  if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(stmt))
    return reference->getDecl() == variable;
  for (const clang::Stmt* child : subStatements(*stmt))
    if (child && mentions(child, variable)) return true;
  return false;
}

// Whether `stmt` is inside a loop counting `counter` up to `bound` (`counter < bound`).
bool inLoopUpTo(const clang::Stmt* stmt, const clang::ValueDecl* counter, const clang::Expr* bound,
                const clang::ParentMap& parents, const clang::ASTContext& context) {
  const clang::VarDecl* limit = variableOf(bound);
  if (!limit) return false;
  for (const clang::Stmt* parent = parents.getParent(const_cast<clang::Stmt*>(stmt)); parent;
       parent = parents.getParent(const_cast<clang::Stmt*>(parent))) {
    const auto* loop = llvm::dyn_cast<clang::ForStmt>(parent);
    if (!loop || !loop->getCond()) continue;
    const std::optional<LoopCounter> looped = loopCounter(*loop, context);
    const auto* condition =
        llvm::dyn_cast<clang::BinaryOperator>(loop->getCond()->IgnoreParenImpCasts());
    if (!looped || looped->variable != counter || looped->direction <= 0 || !condition) continue;
    const std::optional<CounterTest> test = counterTest(*condition, looped->variable);
    if (test && test->op == clang::BO_LT && variableOf(test->bound) == limit) return true;
  }
  return false;
}

bool sizeOfStreamContainer(const clang::Expr* bound) {
  const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(bound->IgnoreParenImpCasts());
  const clang::CXXMethodDecl* method = call ? call->getMethodDecl() : nullptr;
  return method && method->getIdentifier() && method->getName() == "size" &&
         call->getNumArgs() == 0 && holdsStreams(call->getImplicitObjectArgument()->getType());
}

} // namespace

const clang::VarDecl* variableOf(const clang::Expr* expr) {
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
  return reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
}

std::optional<CounterTest> counterTest(const clang::BinaryOperator& comparison,
                                       const clang::VarDecl* counter) {
  if (variableOf(comparison.getRHS()) == counter)
    return CounterTest{clang::BinaryOperator::reverseComparisonOp(comparison.getOpcode()),
                       comparison.getLHS()};
  if (variableOf(comparison.getLHS()) == counter)
    return CounterTest{comparison.getOpcode(), comparison.getRHS()};
  return std::nullopt;
}

std::optional<LoopCounter> loopCounter(const clang::ForStmt& loop,
                                       const clang::ASTContext& context) {
  LoopCounter counter;
  if (const auto* declaration = llvm::dyn_cast_or_null<clang::DeclStmt>(loop.getInit())) {
    if (!declaration->isSingleDecl()) return std::nullopt;
    counter.variable = llvm::dyn_cast<clang::VarDecl>(declaration->getSingleDecl());
    if (counter.variable) counter.start = counter.variable->getInit();
  } else if (const auto* assignment =
                 llvm::dyn_cast_or_null<clang::BinaryOperator>(loop.getInit())) {
    if (assignment->getOpcode() != clang::BO_Assign) return std::nullopt;
    counter.variable = variableOf(assignment->getLHS());
    counter.start = assignment->getRHS();
  }
  if (!counter.variable || !counter.start || !counter.variable->getType()->isIntegerType())
    return std::nullopt;
  counter.direction = stepDirection(loop.getInc(), counter.variable, context);
  if (counter.direction == 0) return std::nullopt;
  return counter;
}

bool onlyReads(const clang::Stmt* stmt, const clang::VarDecl* variable,
               const clang::ParentMap& parents) {
  if (!stmt) return true;
  if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(stmt);
      reference && reference->getDecl() == variable) {
    const auto* load = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(
        parents.getParentIgnoreParens(const_cast<clang::DeclRefExpr*>(reference)));
    return load && load->getCastKind() == clang::CK_LValueToRValue;
  }
  for (const clang::Stmt* child : subStatements(*stmt))
    if (!onlyReads(child, variable, parents)) return false;
  return true;
}

std::optional<LoopEntry> loopEntry(const clang::ForStmt& loop, const clang::ASTContext& context) {
  const std::optional<LoopCounter> counter = loopCounter(loop, context);
  if (!counter || !loop.getCond()) return std::nullopt;
  const auto* condition =
      llvm::dyn_cast<clang::BinaryOperator>(loop.getCond()->IgnoreParenImpCasts());
  if (!condition || !condition->isComparisonOp()) return std::nullopt;
  const std::optional<CounterTest> test = counterTest(*condition, counter->variable);
  if (!test) return std::nullopt;
  clang::BinaryOperatorKind op = test->op;
  const clang::Expr* bound = test->bound;
  // The first test is `start op bound`.
  const std::optional<int64_t> start = constantValue(counter->start, context);
  const std::optional<int64_t> end = constantValue(bound, context);
  if (start && end) {
    const bool enters = op == clang::BO_LT   ? *start < *end
                        : op == clang::BO_LE ? *start <= *end
                        : op == clang::BO_GT ? *start > *end
                        : op == clang::BO_GE ? *start >= *end
                        : op == clang::BO_NE ? *start != *end
                                             : *start == *end;
    if (!enters) return std::nullopt;
    return LoopEntry{};
  }
  // Up from 0 over a container of streams (`i < streams.size()`): were it empty, it would hold
  // no stream for work to be pending on, so the path that skips the loop has nothing the loop
  // orders.
  if (start == 0 && counter->direction > 0 && (op == clang::BO_LT || op == clang::BO_NE) &&
      sizeOfStreamContainer(bound))
    return LoopEntry{};
  // Written as `variable + offset op threshold`.
  std::optional<AffineIndex> variable;
  int64_t threshold = 0;
  if (start) {
    variable = affineIndex(bound, context);
    threshold = *start;
    op = clang::BinaryOperator::reverseComparisonOp(op);
  } else if (end) {
    variable = affineIndex(counter->start, context);
    threshold = *end;
  }
  if (!variable || variable->variable == counter->variable) return std::nullopt;
  threshold -= variable->offset;
  // A counter stepping toward its bound: up to a bound above the start, down to one below it.
  if (op == clang::BO_NE)
    op = start.has_value() == (counter->direction > 0) ? clang::BO_GT : clang::BO_LT;
  switch (op) {
  case clang::BO_GT:
    return LoopEntry{variable->variable, threshold, true};
  case clang::BO_GE:
    return LoopEntry{variable->variable, threshold - 1, true};
  case clang::BO_LT:
    return LoopEntry{variable->variable, threshold - 1, false};
  case clang::BO_LE:
    return LoopEntry{variable->variable, threshold, false};
  default:
    return std::nullopt;
  }
}

const clang::Expr* neighbourIndex(const clang::Expr* init, const clang::ParentMap& parents,
                                  const clang::ASTContext& context) {
  init = init->IgnoreParenImpCasts();
  if (affineIndex(init, context) || mirrorIndex(init, context)) return init;
  if (const auto* choice = llvm::dyn_cast<clang::ConditionalOperator>(init)) {
    // The arm in the variable the condition tests; the other arm, the wrap, is not in it.
    for (const clang::Expr* arm : {choice->getTrueExpr(), choice->getFalseExpr()}) {
      const clang::Expr* other =
          arm == choice->getTrueExpr() ? choice->getFalseExpr() : choice->getTrueExpr();
      const std::optional<AffineIndex> near = affineIndex(arm, context);
      if (near && mentions(choice->getCond(), near->variable) && !mentions(other, near->variable))
        return arm;
    }
    return nullptr;
  }
  if (const auto* remainder = llvm::dyn_cast<clang::BinaryOperator>(init);
      remainder && remainder->getOpcode() == clang::BO_Rem)
    if (const std::optional<AffineIndex> near = affineIndex(remainder->getLHS(), context);
        near && inLoopUpTo(init, near->variable, remainder->getRHS(), parents, context))
      return remainder->getLHS();
  return nullptr;
}

} // namespace streamrace::analyzer
