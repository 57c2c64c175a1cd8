// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Whole-translation-unit facts about the memory fields point to: a loss scaler allocates its
// pinned flag in its constructor (`cudaMallocHost(&found_inf_host_, ...)`) and reads it in a
// method analyzed on its own, where the flow state knows nothing of the allocation. A field every
// allocation in the translation unit makes pinned is pinned in its class's methods, and in the
// functions given a pointer or reference to an object of its class (a C-style context struct).
#pragma once

#include "call_model.h"

#include <map>
#include <set>
#include <vector>

namespace clang {
class ASTContext;
class Expr;
class CXXRecordDecl;
class FieldDecl;
class FunctionDecl;
} // namespace clang

namespace streamrace::analyzer {

class FieldMemory {
public:
  // Learns from the allocations in `functions`' bodies.
  FieldMemory(const std::vector<const clang::FunctionDecl*>& functions, const UserModel* userModel,
              const KernelSummaries& kernels, clang::ASTContext& context);

  // The fields of `record` whose every allocation makes them pinned host memory.
  std::vector<const clang::FieldDecl*> pinnedFields(const clang::CXXRecordDecl& record) const;

  // Whether `pointer` points into a field every allocation makes pinned host memory, whatever
  // object holds the field (`p->stage[peer].host + offset`, pinned in the stage's `alloc()`).
  bool pointsIntoPinnedField(const clang::Expr* pointer) const;

  // Whether `pointer` points into a private or protected field that the translation unit's
  // allocations fill and no public method hands out: memory an object made for itself, which its
  // callers reach only through its methods. (A public field, as a C-style struct's, the caller
  // may fill itself.)
  bool pointsIntoOwnAllocation(const clang::Expr* pointer) const;

  // The fields of `record` and its bases whose memory a public method returns a pointer into
  // (`void* get_ubuf_dptr() { return _ubuf.dptr(); }`, `float* data() { return data_; }`): the
  // caller may fill that memory on its stream before calling the object's other methods.
  std::vector<const clang::FieldDecl*> handedOutFields(const clang::CXXRecordDecl& record) const;

private:
  bool pinned(const clang::FieldDecl& field) const;
  const clang::FieldDecl* fieldPointedInto(const clang::Expr* pointer) const;

  std::map<const clang::FieldDecl*, MemoryKind> kinds_; // Unknown: allocated as several kinds
  std::set<const clang::FieldDecl*> handedOut_;
};

} // namespace streamrace::analyzer
