// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The counter of a `for` loop (`for (int i = start; i < n; ++i)`), and what the first test of the
// loop's condition says: the body runs at least once always (`i = 0; i < 4`), or exactly when one
// variable is above or not above a threshold (`i = 0; i < n` runs when n > 0). A later loop over
// the same bound is then known to run when the earlier one did, so work the earlier loop made is
// not left pending on the path where the later loop, which synchronizes it, runs zero times.
#pragma once

#include "clang/AST/OperationKinds.h"

#include <cstdint>
#include <optional>

namespace clang {
class ASTContext;
class BinaryOperator;
class Expr;
class ForStmt;
class ParentMap;
class Stmt;
class ValueDecl;
class VarDecl;
} // namespace clang

namespace streamrace::analyzer {

struct LoopCounter {
  const clang::VarDecl* variable = nullptr;
  const clang::Expr* start = nullptr;
  int direction = 0; // +1 counting up, -1 counting down
};

// The counter `loop` initializes (`int i = start` or `i = start`) and steps by a constant of one
// sign in its increment.
std::optional<LoopCounter> loopCounter(const clang::ForStmt& loop,
                                       const clang::ASTContext& context);

// A comparison with the counter alone on one side, as `counter op bound`: `i < n` and `n > i` are
// both (<, n). Nullopt for a comparison without the counter alone on either side.
struct CounterTest {
  clang::BinaryOperatorKind op;
  const clang::Expr* bound = nullptr;
};
std::optional<CounterTest> counterTest(const clang::BinaryOperator& comparison,
                                       const clang::VarDecl* counter);

// The variable `expr` names, or null.
const clang::VarDecl* variableOf(const clang::Expr* expr);

// Whether `stmt` only reads `variable` (every use is loaded, never assigned, stepped, bound to a
// reference or has its address taken).
bool onlyReads(const clang::Stmt* stmt, const clang::VarDecl* variable,
               const clang::ParentMap& parents);

// When the body of a loop runs at least once: always when `variable` is null, else exactly when
// (`variable` > `threshold`) == `above`.
struct LoopEntry {
  const clang::ValueDecl* variable = nullptr;
  std::int64_t threshold = 0;
  bool above = true;
};

// What the first test of `loop`'s condition (`counter op bound`, with the start and the bound a
// constant and a local variable plus a constant, or two constants) says; nullopt for any other
// loop, and for two constants that do not enter it.
std::optional<LoopEntry> loopEntry(const clang::ForStmt& loop, const clang::ASTContext& context);

// What a variable initialized with `init` stands for as an index, when it is a loop counter's
// neighbour: `dev - 1` itself, its partner in a pair `1 - dev`, and also `dev > 0 ? dev - 1 : n -
// 1` and, in a loop `for (...; dev < n; ...)`, `(dev + 1) % n`: a neighbour in a ring, whose
// wrapped-around value (in the first or last iteration only) is taken for the next element, as two
// variables are taken for different elements (element_index.h). Null for anything else, such as `b
// % 2`, which cycles.
const clang::Expr* neighbourIndex(const clang::Expr* init, const clang::ParentMap& parents,
                                  const clang::ASTContext& context);

} // namespace streamrace::analyzer
