// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The statements a statement contains. Clang keeps the body of a captured region (the code of an
// OpenMP directive) out of the region's children, so a walk that follows children alone never
// sees the stream work inside `#pragma omp parallel`.
#pragma once

#include "clang/AST/Stmt.h"
#include "llvm/ADT/SmallVector.h"

namespace clang {
class ParentMap;
} // namespace clang

namespace streamrace::analyzer {

// The children of `stmt` (null where Clang leaves a slot empty), then a captured region's body.
llvm::SmallVector<const clang::Stmt*, 4> subStatements(const clang::Stmt& stmt);

// Calls `visit` on each statement of `body` and of what it contains, captured regions included.
template <typename Visit> void forEachStatement(const clang::Stmt* body, Visit&& visit) {
  llvm::SmallVector<const clang::Stmt*, 32> stack{body};
  while (!stack.empty()) {
    const clang::Stmt* stmt = stack.pop_back_val();
    if (!stmt) continue;
    visit(*stmt);
    for (const clang::Stmt* child : subStatements(*stmt))
      stack.push_back(child);
  }
}

// Adds to `parents`, built over `body`, the statements of the captured regions inside it.
void addCapturedRegions(clang::ParentMap& parents, const clang::Stmt& body);

} // namespace streamrace::analyzer
