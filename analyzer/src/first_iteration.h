// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Branches only a loop's first iteration takes: `if (i > 0) cudaStreamWaitEvent(...)` in
// `for (int i = 0; i < n; ++i)`, `if (layer != num_layers - 1)` in a loop counting down from
// `num_layers - 1`. On such a branch nothing the loop's body does after the guard has run yet, so
// a wait the guard skips has no earlier iteration's work to order (CUDA documents a wait on an
// event never recorded as a no-op).
#pragma once

#include "clang/Basic/SourceLocation.h"

#include <optional>

namespace clang {
class ASTContext;
class CFGBlock;
class ForStmt;
class ParentMap;
} // namespace clang

namespace streamrace::analyzer {

struct FirstIterationBranch {
  const clang::ForStmt* loop = nullptr;
  clang::SourceLocation guardEnd; // the guard's condition ends here
  unsigned successor = 0;         // 0: the condition's true branch, 1: its false branch
};

// The branch of `block`'s `if` only the first iteration of its innermost enclosing `for` takes:
// the condition compares the loop's counter (initialized once, stepped by a constant in the
// increment, changed nowhere else) with the counter's initial value or a constant, and every
// later iteration's value decides it the other way.
std::optional<FirstIterationBranch> firstIterationBranch(const clang::CFGBlock& block,
                                                         const clang::ParentMap& parents,
                                                         const clang::ASTContext& context);

} // namespace streamrace::analyzer
