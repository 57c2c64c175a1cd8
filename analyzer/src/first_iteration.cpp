// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "first_iteration.h"

#include "call_model.h"
#include "loop_counter.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "clang/Analysis/CFG.h"

namespace streamrace::analyzer {
namespace {

// The innermost loop `stmt` is in, if it is a `for` whose body holds it.
const clang::ForStmt* enclosingFor(const clang::Stmt* stmt, const clang::ParentMap& parents) {
  const clang::Stmt* child = stmt;
  for (const clang::Stmt* parent = parents.getParent(const_cast<clang::Stmt*>(stmt)); parent;
       child = parent, parent = parents.getParent(const_cast<clang::Stmt*>(parent))) {
    if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(parent))
      return loop->getBody() == child ? loop : nullptr;
    if (llvm::isa<clang::WhileStmt, clang::DoStmt, clang::CXXForRangeStmt>(parent)) return nullptr;
  }
  return nullptr;
}

// Whether two expressions spell the same computation over the same declarations.
bool sameExpression(const clang::Expr* a, const clang::Expr* b, const clang::ASTContext& context) {
  llvm::FoldingSetNodeID first, second;
  a->IgnoreParenImpCasts()->Profile(first, context, /*Canonical=*/true);
  b->IgnoreParenImpCasts()->Profile(second, context, /*Canonical=*/true);
  return first == second;
}

// A set of integers: [low, high], either end open when absent.
struct Interval {
  std::optional<int64_t> low, high;
  bool contains(int64_t value) const {
    return (!low || *low <= value) && (!high || value <= *high);
  }
  bool disjointFrom(const Interval& other) const {
    return (high && other.low && *high < *other.low) || (other.high && low && *other.high < *low);
  }
  bool within(const Interval& other) const {
    return (!other.low || (low && *other.low <= *low)) &&
           (!other.high || (high && *high <= *other.high));
  }
};

// Whether `x op k` holds for every x of `values` (true), for none (false), or is undecided.
std::optional<bool> decide(clang::BinaryOperatorKind op, int64_t k, const Interval& values) {
  switch (op) {
  case clang::BO_EQ:
    if (!values.contains(k)) return false;
    return std::nullopt;
  case clang::BO_NE:
    if (!values.contains(k)) return true;
    return std::nullopt;
  default:
    break;
  }
  Interval holds;
  if (op == clang::BO_LT)
    holds.high = k - 1;
  else if (op == clang::BO_LE)
    holds.high = k;
  else if (op == clang::BO_GT)
    holds.low = k + 1;
  else if (op == clang::BO_GE)
    holds.low = k;
  else
    return std::nullopt;
  if (values.within(holds)) return true;
  if (values.disjointFrom(holds)) return false;
  return std::nullopt;
}

} // namespace

std::optional<FirstIterationBranch> firstIterationBranch(const clang::CFGBlock& block,
                                                         const clang::ParentMap& parents,
                                                         const clang::ASTContext& context) {
  const auto* guard = llvm::dyn_cast_or_null<clang::IfStmt>(block.getTerminatorStmt());
  if (!guard || block.succ_size() != 2) return std::nullopt;
  const clang::Expr* tested = guard->getCond()->IgnoreParenImpCasts();
  const auto* condition = llvm::dyn_cast<clang::BinaryOperator>(tested);
  if (!condition || !condition->isComparisonOp() ||
      block.getTerminatorCondition(false) != guard->getCond())
    return std::nullopt;
  const clang::ForStmt* loop = enclosingFor(guard, parents);
  if (!loop) return std::nullopt;
  const std::optional<LoopCounter> counter = loopCounter(*loop, context);
  if (!counter || !onlyReads(loop->getBody(), counter->variable, parents) ||
      !onlyReads(loop->getCond(), counter->variable, parents))
    return std::nullopt;
  const std::optional<CounterTest> test = counterTest(*condition, counter->variable);
  if (!test) return std::nullopt;
  const clang::BinaryOperatorKind op = test->op;
  const clang::Expr* bound = test->bound;
  // How far the bound is from the start: the start itself, or two constants.
  std::optional<int64_t> distance;
  if (sameExpression(bound, counter->start, context)) {
    distance = 0;
  } else {
    const std::optional<int64_t> start = constantValue(counter->start, context);
    const std::optional<int64_t> value = constantValue(bound, context);
    if (start && value) distance = *value - *start;
  }
  if (!distance) return std::nullopt;
  // The counter minus its start in every iteration but the first.
  Interval later;
  if (counter->direction > 0)
    later.low = 1;
  else
    later.high = -1;
  const std::optional<bool> laterIterations = decide(op, *distance, later);
  if (!laterIterations) return std::nullopt;
  return FirstIterationBranch{loop, condition->getEndLoc(), *laterIterations ? 1u : 0u};
}

} // namespace streamrace::analyzer
