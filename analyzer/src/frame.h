// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One function being analyzed: a root (a host function of the main file) or a call analyzed in
// place, with the parameters bound to the caller's values.
#pragma once

#include <string>
#include <vector>

namespace clang {
class Expr;
class FunctionDecl;
class ParentMap;
class Stmt;
} // namespace clang

namespace streamrace::analyzer {

struct Frame {
  const clang::FunctionDecl* function = nullptr;
  std::string thisKey = "this";
  const clang::Stmt* site = nullptr; // the call in the root function this frame serves
  const clang::Expr* call = nullptr; // the call in the caller that entered this frame
  const Frame* caller = nullptr;
  unsigned depth = 0;
  const clang::ParentMap* parents = nullptr;
  const clang::ParentMap* rootParents = nullptr;
  bool reporting = false; // the final pass over a fixpoint: checks see its events
};

// Where in the root function `stmt` (of this frame) happens: the call it is inside, or itself.
inline const clang::Stmt* siteOf(const clang::Stmt& stmt, const Frame& frame) {
  return frame.site ? frame.site : &stmt;
}

// One call on the way from the root function down to an access: the call and what it called.
struct CallStep {
  const clang::Expr* call = nullptr;
  const clang::FunctionDecl* callee = nullptr;
  bool operator==(const CallStep&) const = default;
};

// The calls that led to `frame`, innermost first (empty for a root).
inline std::vector<CallStep> callChain(const Frame& frame) {
  std::vector<CallStep> chain;
  for (const Frame* current = &frame; current->caller; current = current->caller)
    chain.push_back({current->call, current->function});
  return chain;
}

} // namespace streamrace::analyzer
