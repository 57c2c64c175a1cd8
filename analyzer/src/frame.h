// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One function being analyzed: a root (a host function of the main file) or a call analyzed in
// place, with the parameters bound to the caller's values.
#pragma once

#include "clang/AST/Stmt.h"

#include <string>
#include <vector>

namespace clang {
class FunctionDecl;
class ParentMap;
} // namespace clang

namespace streamrace::analyzer {

struct Frame {
  const clang::FunctionDecl* function = nullptr;
  std::string thisKey = "this";
  const clang::Stmt* site = nullptr; // the call in the root function this frame serves
  // The call in the caller that entered this frame: a call or construction expression, or for a
  // destructor run where a scope ends, the statement ending it (the block, a `return`).
  const clang::Stmt* call = nullptr;
  const Frame* caller = nullptr;
  unsigned depth = 0;
  const clang::ParentMap* parents = nullptr;
  const clang::ParentMap* rootParents = nullptr;
  bool reporting = false; // the final pass over a fixpoint: checks see its events
  // Entered through a `std::function` call that runs only where its lambda was made: the
  // callee's own analysis does not see what the lambda does.
  bool throughCallable = false;
};

// Where in the root function `stmt` (of this frame) happens: the call it is inside, or itself.
inline const clang::Stmt* siteOf(const clang::Stmt& stmt, const Frame& frame) {
  return frame.site ? frame.site : &stmt;
}

// One call on the way from the root function down to an access: the call and what it called.
struct CallStep {
  const clang::Stmt* call = nullptr; // as Frame::call
  const clang::FunctionDecl* callee = nullptr;
  bool operator==(const CallStep&) const = default;
};

// Where a call happens: its first token, or the closing brace of the block whose end runs a
// destructor.
inline clang::SourceLocation callLocation(const clang::Stmt& call) {
  if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(&call)) return block->getRBracLoc();
  return call.getBeginLoc();
}

// The function the analysis started from: where fix-its go.
inline const clang::FunctionDecl& rootFunction(const Frame& frame) {
  const Frame* root = &frame;
  while (root->caller)
    root = root->caller;
  return *root->function;
}

// The calls that led to `frame`, innermost first (empty for a root).
inline std::vector<CallStep> callChain(const Frame& frame) {
  std::vector<CallStep> chain;
  for (const Frame* current = &frame; current->caller; current = current->caller)
    chain.push_back({current->call, current->function});
  return chain;
}

} // namespace streamrace::analyzer
