// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fix-its that order two accesses: an event record/wait pair placed in the innermost block that
// holds both (the record after the statement of that block holding the first access, the wait
// before the one holding the second), a stream synchronization where no event fits.
#pragma once

#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace clang {
class ASTContext;
class ParentMap;
class Stmt;
} // namespace clang

namespace streamrace::analyzer {

// The full statement (a direct child of a compound statement) that contains `stmt`, or null.
const clang::Stmt* enclosingStatement(const clang::Stmt* stmt, const clang::ParentMap& parents);

// The location just past the statement's terminating semicolon, in the file.
clang::SourceLocation locationAfterStatement(const clang::Stmt* statement,
                                             const clang::ASTContext& context);

// Makes `consumerStream` wait, before `second`, for the work `first` enqueued on
// `producerStream`.
std::vector<clang::FixItHint> orderStreamsFix(const clang::Stmt* first, const clang::Stmt* second,
                                              llvm::StringRef producerStream,
                                              llvm::StringRef consumerStream,
                                              const clang::ParentMap& parents,
                                              const clang::ASTContext& context);

// Makes the host wait for `stream` before `site`.
std::vector<clang::FixItHint> synchronizeBeforeFix(const clang::Stmt* site, llvm::StringRef stream,
                                                   const clang::ParentMap& parents,
                                                   const clang::ASTContext& context);

} // namespace streamrace::analyzer
