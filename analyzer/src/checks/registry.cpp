// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The module's checks, one factory per check (each defined beside its class).
#include "checks/check.h"

namespace streamrace::analyzer {

std::unique_ptr<Check> makeUnsynchronizedCrossStream(clang::ASTContext&, FindingSink&);
std::unique_ptr<Check> makeHostAccessBeforeSync(clang::ASTContext&, FindingSink&);
std::unique_ptr<Check> makeWaitUnrecordedEvent(clang::ASTContext&, FindingSink&);
std::unique_ptr<Check> makeFreeWhilePending(clang::ASTContext&, FindingSink&);

std::vector<std::unique_ptr<Check>> makeChecks(clang::ASTContext& context, FindingSink& sink) {
  std::vector<std::unique_ptr<Check>> checks;
  checks.push_back(makeUnsynchronizedCrossStream(context, sink));
  checks.push_back(makeHostAccessBeforeSync(context, sink));
  checks.push_back(makeWaitUnrecordedEvent(context, sink));
  checks.push_back(makeFreeWhilePending(context, sink));
  return checks;
}

} // namespace streamrace::analyzer
