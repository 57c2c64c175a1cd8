// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Keys name storage: "name@id" for a variable (element_index.h variableKey), then ".field",
// "[3]", "[*]", ".m()" for what is reached from it; a pointer's key names what it points to.
// Buffers, streams and events are all named this way; the flow state maps keys to what the analysis
// knows about them.
#pragma once

#include "byte_range.h"
#include "flow_state.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

#include "clang/AST/Type.h"

namespace clang {
class ASTContext;
class CXXMethodDecl;
class Expr;
class FunctionDecl;
class MemberExpr;
} // namespace clang

namespace streamrace::analyzer {

class StorageKeys {
public:
  explicit StorageKeys(clang::ASTContext& context) : context_(context) {}

  // The storage `expr` names, through the aliases of `state`; `thisKey` names `this`.
  std::optional<std::string> keyOf(const clang::Expr* expr, const FlowState& state,
                                   llvm::StringRef thisKey) const;

  // The field `member` names itself, not what fieldAliases bind it to.
  std::optional<std::string> fieldKeyOf(const clang::MemberExpr& member, const FlowState& state,
                                        llvm::StringRef thisKey) const;

  // The stream `expr` is: null or 0 the default stream (per-thread for _ptsz calls), 1 and 2 the
  // legacy and per-thread handles, anything else its storage with indices collapsed.
  std::optional<std::string> streamKeyOf(const clang::Expr* expr, bool perThreadDefault,
                                         const FlowState& state, llvm::StringRef thisKey) const;

  // streamKeyOf with the indices kept as element keys spell them (`streams[i]`).
  std::optional<std::string> streamElementOf(const clang::Expr* expr, bool perThreadDefault,
                                             const FlowState& state, llvm::StringRef thisKey) const;

  // Streams and events are named with collapsed indices (element_index.h).
  std::optional<std::string> handleKeyOf(const clang::Expr* expr, const FlowState& state,
                                         llvm::StringRef thisKey) const;

  // A subscript as element keys spell it (element_index.h indexKey), integer parameters of calls
  // analyzed in place replaced by the caller's arguments.
  std::string indexKeyOf(const clang::Expr* index, const FlowState& state) const;

  // An integer expression as a polynomial over the values it is made of (byte_range.h), or
  // nullopt when it is built from something the analysis does not name (a call).
  std::optional<Polynomial> valueOf(const clang::Expr* expr, const FlowState& state,
                                    llvm::StringRef thisKey) const;

  // How many bytes past the storage keyOf(pointer) names the pointer points: `p + n` is
  // n·sizeof(*p) past p, `&a[i]` i·sizeof(a[0]) past a, an alias the offset it was bound with.
  std::optional<Polynomial> byteOffsetOf(const clang::Expr* pointer, const FlowState& state,
                                         llvm::StringRef thisKey) const;

  // The size in bytes of a value of `type`, 1 for void and incomplete types.
  std::int64_t sizeOf(clang::QualType type) const;

private:
  // The text an opaque term of valueOf is named by, or nullopt.
  std::optional<std::string> termText(const clang::Expr* expr, const FlowState& state,
                                      llvm::StringRef thisKey) const;

  // What a class's `operator->` returns, named as its `get()`.
  std::optional<std::string> smartPointerKey(const clang::Expr* object, const FlowState& state,
                                             llvm::StringRef thisKey) const;

  std::optional<std::string> elementKey(const clang::Expr* base, const clang::Expr* index,
                                        const FlowState& state, llvm::StringRef thisKey) const;

  clang::ASTContext& context_;
};

// What `object.method()` names when the method's body does not tell (a library's accessor).
std::string methodResultKey(llvm::StringRef object, llvm::StringRef method);

// What a method without parameters whose body is one `return` returns (a getter), or null.
const clang::Expr* returnedBy(const clang::CXXMethodDecl& method);

// The field of its object a getter returns (`return data_;`), or null: the getter names it.
const clang::MemberExpr* fieldReturnedBy(const clang::CXXMethodDecl& method);

// A key for people to read: "buf@1f2e.data[i@3a]" is "buf.data[i]", "this.data" "this->data".
std::string displayName(llvm::StringRef key);

// "stream 's'", or the default stream's name.
std::string streamDisplayName(llvm::StringRef key);

// How code in `function` writes what `key` names, or nullopt where it cannot: a callee's local,
// another class's private field, an element.
std::optional<std::string> spellingIn(llvm::StringRef key, const clang::FunctionDecl& function);

// A key as code in `function` would name it (spellingIn), shown as displayName where it cannot.
std::string displayNameIn(llvm::StringRef key, const clang::FunctionDecl& function);

// streamDisplayName with the stream named as displayNameIn does.
std::string streamDisplayNameIn(llvm::StringRef key, const clang::FunctionDecl& function);

// The stream as a fix-it in `function` names it; empty where it cannot (spellingIn).
std::string streamSpelling(llvm::StringRef key, const clang::FunctionDecl& function);

} // namespace streamrace::analyzer
