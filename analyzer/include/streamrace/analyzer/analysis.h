// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The flow-sensitive checks over host code: one entry point that both front ends call.
#pragma once

#include "streamrace/analyzer/finding.h"
#include "streamrace/analyzer/user_model.h"

#include <vector>

namespace clang {
class ASTContext;
}

namespace streamrace::analyzer {

struct AnalysisOptions {
  const UserModel* userModel = nullptr;
};

// Findings for every host function defined in the main file of the translation unit, in source
// order, each reported once even when reached through several template instantiations.
std::vector<Finding> analyzeTranslationUnit(clang::ASTContext& context,
                                            const AnalysisOptions& options);

} // namespace streamrace::analyzer
