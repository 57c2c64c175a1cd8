// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Whole-translation-unit facts about registration handles: an integer a function of the program
// returns when given the address of a buffer pointer, which later calls pass instead of the buffer
// (TransformerEngine's `_ub_reg = register_user_buffer_collective(&buffer_ptr, bytes, comm, true)`,
// then `allgather2_userbuff_inplace(_ub_reg, offset, elements, comm, stream)`). Where the handle is
// a field, the registered memory is the field of the same object the pointer is kept in (the
// pointer field registered, or the field assigned from the pointer or an object built from it);
// where it is a local, the registered pointer of the same function.
#pragma once

#include "function_effects.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class Decl;
class Expr;
class FieldDecl;
class FunctionDecl;
class VarDecl;
} // namespace clang

namespace streamrace::analyzer {

// The memory a handle argument names: `field` of the handle's object (`expr` that object, a
// pointer or `this`), or, with `field` empty, what `expr` points to.
struct RegisteredMemory {
  const clang::Expr* expr = nullptr;
  std::string field;
};

class RegistrationHandles {
public:
  RegistrationHandles(const std::vector<const clang::FunctionDecl*>& functions,
                      const clang::ASTContext& context, ExternalDefinitions* external);

  // The memory `argument` names when it is a registration handle (a field of an object, or a
  // local of `function`), else nullopt.
  std::optional<RegisteredMemory> memoryOf(const clang::Expr& argument,
                                           const clang::FunctionDecl* function) const;

private:
  void learn(const clang::Decl* handle, const clang::Expr& value,
             const clang::FunctionDecl& function);

  const clang::ASTContext& context_;
  ExternalDefinitions* external_;
  std::map<const clang::FieldDecl*, std::string> fieldHandles_; // handle -> ".field" holding it
  // A local handle: the registered pointer as its registration named it (`&buffer`'s `buffer`).
  std::map<const clang::VarDecl*, RegisteredMemory> localHandles_;
};

} // namespace streamrace::analyzer
