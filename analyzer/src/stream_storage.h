// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Whole-translation-unit facts about streams kept in fields and globals: a trainer's member
// streams are created in its constructor (or an init function) and used by the methods a driver
// calls, each analyzed on its own. A creation fills storage directly
// (`cudaStreamCreateWithFlags(&comm_, cudaStreamNonBlocking)`) or through a local it made
// (`streams_.push_back(stream)`, `comm_ = stream`). Storage every creation in the translation unit
// makes non-blocking is non-blocking wherever the analysis meets it, also through a getter that
// returns it (`get()`, a conversion operator of an RAII wrapper). Storage created blocking
// anywhere, or never created here, keeps the default assumption: blocking. Storage that nothing
// but creations fills, and that no getter hands out, holds the program's own streams: never the
// one a caller passes in.
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
  // Whether `stream` names storage that only stream creations of this translation unit fill
  // (reset to null aside) and that no function hands out: a stream the program made for itself.
  bool holdsOnlyCreatedStreams(const clang::Expr* stream) const;
  // Whether the program keeps streams of its own that only non-blocking creations fill: streams
  // the legacy and the per-thread default streams do not order.
  bool keepsNonBlockingStreams() const;

  struct Filling {
    bool created = false;    // a stream creation fills it
    bool nonBlocking = true; // every creation filling it is non-blocking
    bool otherwise = false;  // something else is stored there, or may be (an alias, a getter)
  };

private:
  const Filling* fillingOf(const clang::Expr* stream) const;

  std::map<const clang::ValueDecl*, Filling> filled_;
};

} // namespace streamrace::analyzer
