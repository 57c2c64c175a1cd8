// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A function of the program whose body the analysis cannot read (another translation unit, a
// library the project builds) that takes one stream: the convention every CUDA code base keeps
// for such functions (`invokeSoftmax(out, in, n, stream)`, `launch_bias_gelu(..., stream)`) is
// that they enqueue their work on that stream and return, so a call is stream work on it that
// reads what it gets as pointers, and writes what it gets as pointers to non-const numbers, each
// from the pointer on, a part its other arguments choose (ChosenPart). An event it is given
// (TransformerEngine's userbuffers take a launch event) it may wait on before its work and record
// after it: its stream waits on the event's record, and the event is recorded after the work. Taken
// as a completion event, a launch event orders more than it does: a race is missed, none invented.
#pragma once

#include "call_model.h"

#include <optional>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
class SourceManager;
} // namespace clang

namespace streamrace::analyzer {

class ExternalDefinitions;
class RegistrationHandles;

// Whether `callee` is such a launcher: declared outside system headers, without a definition here
// or in `external`, with exactly one stream parameter and no event parameter (a function given
// an event may record or wait on it, which this cannot say).
bool isExternalLauncher(const clang::FunctionDecl& callee, const clang::SourceManager& sources,
                        ExternalDefinitions* external);

// The work `call` enqueues when `callee` is a launcher, else nullopt. A buffer that `enclosing`
// also gives the launcher with other numbers is split between those calls (ChosenPart::split). A
// registration handle it is given (`registrations`) names memory it reads.
std::optional<CallEffect>
externalLauncherEffect(const clang::CallExpr& call, const clang::FunctionDecl& callee,
                       const clang::FunctionDecl* enclosing, const clang::ASTContext& context,
                       ExternalDefinitions* external, const RegistrationHandles& registrations);

} // namespace streamrace::analyzer
