// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Whole-translation-unit facts about what the program does with its events. An event is recorded
// so that something waits for it, synchronizes it, queries it or times with it; one the program
// only ever creates, records, tests against null and destroys orders nothing, and the work
// recorded into it is left for whoever comes next to meet unordered.
#pragma once

#include <set>
#include <vector>

namespace clang {
class Expr;
class FunctionDecl;
class ValueDecl;
} // namespace clang

namespace streamrace::analyzer {

class EventUses {
public:
  // Learns from every mention of an event variable or field in `functions`' bodies.
  explicit EventUses(const std::vector<const clang::FunctionDecl*>& functions);

  // The variable or field `event` (an event argument) reads: through subscripts and `&`.
  static const clang::ValueDecl* storageOf(const clang::Expr* event);

  // Whether nothing of the translation unit uses `event`'s storage but to create, record,
  // destroy, assign or test it against null. A parameter is the caller's to use: never.
  bool waitedNowhere(const clang::ValueDecl* event) const;

private:
  std::set<const clang::ValueDecl*> mentioned_;
  std::set<const clang::ValueDecl*> used_;
};

} // namespace streamrace::analyzer
