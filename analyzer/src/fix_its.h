// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fix-its that order two accesses: an event record/wait pair placed in the innermost block that
// holds both (the record after the statement of that block holding the first access, the wait
// before the one holding the second); for a race carried around a loop (the later access comes
// first in the loop's body), an event created before the loop, recorded after the earlier
// access, waited on before the later one (a no-op in the first iteration) and destroyed after
// the loop; a stream synchronization only where no event fits and the host may wait.
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
// `producerStream`. `hostMayWait` false: never a synchronization of the host (the producer's
// stream waits for something the host does later), no fix-it rather than one that could hang.
std::vector<clang::FixItHint> orderStreamsFix(const clang::Stmt* first, const clang::Stmt* second,
                                              llvm::StringRef producerStream,
                                              llvm::StringRef consumerStream,
                                              const clang::ParentMap& parents,
                                              const clang::ASTContext& context, bool hostMayWait);

// Makes the host wait for `stream` before `site`.
std::vector<clang::FixItHint> synchronizeBeforeFix(const clang::Stmt* site, llvm::StringRef stream,
                                                   const clang::ParentMap& parents,
                                                   const clang::ASTContext& context);

} // namespace streamrace::analyzer
