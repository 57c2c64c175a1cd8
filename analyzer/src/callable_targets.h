// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Whole-translation-unit facts about `std::function`: which lambdas the program turns into each
// `std::function` type (`hooks.push_back([&](float* grad, size_t n) { ... })`). A call through
// an object of that type (`hook(grad, n)`, in PyTorch DDP's gradient hooks) may run any of them,
// so the analysis runs each in place and joins what they leave.
#pragma once

#include <map>
#include <vector>

namespace clang {
class CXXMethodDecl;
class CXXOperatorCallExpr;
class FunctionDecl;
class Type;
} // namespace clang

namespace streamrace::analyzer {

class CallableTargets {
public:
  // Learns from the lambdas converted to `std::function` in `functions`' bodies.
  explicit CallableTargets(const std::vector<const clang::FunctionDecl*>& functions);

  // The lambdas' call operators a call through a `std::function` may run; empty for any other
  // call, or a `std::function` type no lambda of the translation unit was turned into.
  const std::vector<const clang::CXXMethodDecl*>&
  targetsOf(const clang::CXXOperatorCallExpr& call) const;

private:
  std::map<const clang::Type*, std::vector<const clang::CXXMethodDecl*>> targets_;
};

} // namespace streamrace::analyzer
