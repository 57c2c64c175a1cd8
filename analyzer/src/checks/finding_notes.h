// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Wording the checks share: how an access, a function, the way to an access are named. A finding
// sits at the later access itself, in whatever function makes it; notes give the earlier access
// and the calls that lead from the analyzed function to each, so one finding stands for every
// call site that reaches the race.
#pragma once

#include "checks/check.h"
#include "flow_state.h"
#include "frame.h"
#include "streamrace/analyzer/finding.h"

#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace streamrace::analyzer {

// "read", "written", "read and written".
std::string accessVerb(bool read, bool write);

// What the earlier access may still be doing: "may still be writing it", "... reading it", "may
// not have allocated it yet".
std::string stillPending(const AccessRecord& record, const AccessDetail& earlier);

// How notes name a function: lambdas have no useful name of their own, constructors and
// destructors are said to be.
std::string describeFunction(const clang::FunctionDecl& function);

// "'f' is called here" at each call of `chain`, innermost first.
void addCallNotes(Finding& finding, const std::vector<CallStep>& chain);

// Who comes later, and so would wait for an event recorded after the earlier access: another
// stream (cudaStreamWaitEvent) or the host (cudaEventSynchronize).
enum class LaterSide { Stream, Host };

// Notes at the earlier access and the calls that lead to it, and where an event recorded after
// it would go; names as code in `where` (the root function) writes them.
void addEarlierAccessNotes(Finding& finding, const AccessRecord& record,
                           const AccessDetail& earlier, const std::string& buffer,
                           const clang::FunctionDecl& where, const clang::ASTContext& context,
                           LaterSide later);

// When a host wait for the earlier access's stream could hang (a kernel there waits for the
// host), says so in a note and returns true: the check then offers no fix-it.
bool withholdHostWait(Finding& finding, const UnorderedAccess& pair);

} // namespace streamrace::analyzer
