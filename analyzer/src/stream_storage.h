// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Whole-translation-unit facts about streams kept in fields and globals: a trainer's member
// streams are created in its constructor (or an init function) and used by the methods a driver
// calls, each analyzed on its own. Storage every creation in the translation unit makes
// non-blocking (`cudaStreamCreateWithFlags(&comm_, cudaStreamNonBlocking)`) is non-blocking
// wherever the analysis meets it, also through a getter that returns it (`get()`, a conversion
// operator of an RAII wrapper). Storage created blocking anywhere, or never created here, keeps
// the default assumption: blocking.
#pragma once

#include "call_model.h"

#include <map>
#include <vector>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
class ValueDecl;
} // namespace clang

namespace streamrace::analyzer {

// The field or global `expr` reads (an element of an array or vector field counts as the field;
// `&field` names the field), through getters that return one; null for anything else (locals,
// parameters: the flow analysis follows those itself).
const clang::ValueDecl* storageOf(const clang::Expr* expr);

class StreamStorage {
public:
  // Learns from the stream creations in `functions`' bodies.
  StreamStorage(const std::vector<const clang::FunctionDecl*>& functions,
                const UserModel* userModel, const KernelSummaries& kernels,
                clang::ASTContext& context);

  // Whether `stream` (a stream argument) names storage only ever created non-blocking.
  bool createdNonBlocking(const clang::Expr* stream) const;

private:
  std::map<const clang::ValueDecl*, bool> nonBlocking_; // storage -> every creation non-blocking
};

} // namespace streamrace::analyzer
