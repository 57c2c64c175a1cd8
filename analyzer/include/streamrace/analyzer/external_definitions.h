// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bodies of functions the translation unit only declares, taken from the other translation units
// of the program (streamrace-check -p: tool/cross_tu_definitions.h). A call to such a function is
// then analysed in place like a call to a local one; without a source of external definitions
// the call stays external, as a library call is.
#pragma once

#include <string>
#include <vector>

namespace clang {
class FunctionDecl;
} // namespace clang

namespace streamrace::analyzer {

class ExternalDefinitions {
public:
  virtual ~ExternalDefinitions() = default;

  // The definition of `declaration` (which has no body here), brought into this translation
  // unit's AST; null when no other translation unit defines it, or when it could not be brought
  // in (then listed by takeMisses).
  virtual const clang::FunctionDecl* definitionOf(const clang::FunctionDecl& declaration) = 0;

  // A function another translation unit defines whose definition was not brought in, and why
  // ("'f.cu' does not compile", "8 other translation units are loaded at most").
  struct Miss {
    const clang::FunctionDecl* declaration;
    std::string reason;
  };

  // The misses since the last call, each function once.
  virtual std::vector<Miss> takeMisses() = 0;
};

} // namespace streamrace::analyzer
