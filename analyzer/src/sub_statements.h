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

// Adds to `parents`, built over `body`, the statements of the captured regions inside it.
void addCapturedRegions(clang::ParentMap& parents, const clang::Stmt& body);

} // namespace streamrace::analyzer
