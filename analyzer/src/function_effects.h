// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which functions of the translation unit can change what the flow analysis tracks, found once
// per function by a scan of its body before any state is built. Most calls in host code (getters
// of RAII wrappers, error-check helpers, bookkeeping) do no stream work: analyzing them in place
// copies the caller's whole state through their CFG and changes nothing, so the analysis skips
// them when the scan says so.
//
// A function is stream-inert when neither it nor anything it calls in the translation unit makes
// a call the model knows (CUDA/NCCL API, user model, kernel launch, malloc/free), deletes
// anything, or assigns a pointer or reference it does not own (a global, a lambda's capture).
// Running an inert function then changes only its own locals, except in two ways the analysis
// checks at each call, with the caller's state in hand:
//   - a host access (`p[i]`, a call with `p`) reports when `p` is pinned memory with a pending
//     copy, so a state holding pinned memory is analyzed in place while reporting;
//   - a `for` loop over an array starts by renaming the elements touched before it through the
//     loop's variable (element_index.h rebaseIndices), which renames the caller's keys of that
//     array: the loop's arrays are listed here, and a call is analyzed in place when the caller's
//     state names one of them (or a variable of such a loop).
#pragma once

#include "call_model.h"
#include "callable_targets.h"

#include "streamrace/analyzer/external_definitions.h"

#include <map>
#include <vector>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
class SourceManager;
class ValueDecl;
} // namespace clang

namespace streamrace::analyzer {

// The definition a call to `callee` is analyzed in place with: a body outside system headers,
// not a template pattern, in this translation unit or (a function declared outside system
// headers without a body here) from `external`. Null when calls to it are external.
const clang::FunctionDecl* analyzableDefinition(const clang::FunctionDecl& callee,
                                                const clang::SourceManager& sources,
                                                ExternalDefinitions* external);

// The `for` loops of an inert function that may rename the caller's keys when they start.
struct LoopRenames {
  // Subscripted arrays whose keys cannot be worked out from the call alone (a local pointer or
  // reference, a parameter assigned in the body), or such loops inside an inert callee.
  bool opaque = false;
  // The arrays the loops subscript with their variable, as expressions of the function.
  std::vector<const clang::Expr*> containers;
  // The loops' variables: keys that mention them come from an earlier run of these loops.
  std::vector<const clang::ValueDecl*> variables;

  bool empty() const { return !opaque && containers.empty() && variables.empty(); }
};

class FunctionEffects {
public:
  FunctionEffects(clang::ASTContext& context, const UserModel* userModel,
                  const KernelSummaries& kernels, const CallableTargets& callables,
                  ExternalDefinitions* external)
      : context_(context), userModel_(userModel), kernels_(kernels), callables_(callables),
        external_(external) {}

  // Whether running `definition` may do stream work or change state beyond its own locals (see
  // above); false means stream-inert.
  bool mayTouchStreams(const clang::FunctionDecl& definition);

  // For a stream-inert function: what its loops (and its inert callees' loops) may rename.
  const LoopRenames& loopRenames(const clang::FunctionDecl& definition);

private:
  struct Scan {
    bool touchesStreams = false;                     // by its own statements
    std::vector<const clang::FunctionDecl*> callees; // analyzable definitions it calls
    LoopRenames loops;                               // its own loops only
  };

  const Scan& scan(const clang::FunctionDecl& definition);

  clang::ASTContext& context_;
  const UserModel* userModel_;
  const KernelSummaries& kernels_;
  const CallableTargets& callables_;
  ExternalDefinitions* external_;
  std::map<const clang::FunctionDecl*, Scan> scans_;
  std::map<const clang::FunctionDecl*, bool> touches_;
  std::map<const clang::FunctionDecl*, LoopRenames> renames_;
};

} // namespace streamrace::analyzer
