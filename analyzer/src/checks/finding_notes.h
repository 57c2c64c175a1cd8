// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Wording the checks share: how an access, a function, the earlier access's place are named.
#pragma once

#include "flow_state.h"
#include "frame.h"
#include "streamrace/analyzer/finding.h"

#include <string>

namespace clang {
class ASTContext;
class Stmt;
} // namespace clang

namespace streamrace::analyzer {

// "read", "written", "read and written".
std::string accessVerb(bool read, bool write);

// How notes name a function: lambdas have no useful name of their own.
std::string describeFunction(const clang::FunctionDecl& function);

// Notes at the earlier access (and inside the function that makes it), and where an event
// recorded after it would go.
void addAccessNotes(Finding& finding, const AccessRecord& record, const AccessDetail& earlier,
                    const std::string& buffer, const clang::ASTContext& context);

// A note at the later access when it is inside a function called from the root.
void addInnerNote(Finding& finding, const clang::Stmt& access, const Frame& frame,
                  const std::string& operation);

} // namespace streamrace::analyzer
