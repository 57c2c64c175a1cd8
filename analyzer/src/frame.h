// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One function being analyzed: a root (a host function of the main file) or a call analyzed in
// place, with the parameters bound to the caller's values.
#pragma once

#include <string>

namespace clang {
class FunctionDecl;
class ParentMap;
class Stmt;
} // namespace clang

namespace streamrace::analyzer {

struct Frame {
  const clang::FunctionDecl* function = nullptr;
  std::string thisKey = "this";
  const clang::Stmt* site = nullptr; // the call in the root function this frame serves
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

} // namespace streamrace::analyzer
