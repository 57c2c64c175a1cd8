// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Array elements in storage keys. An element key ends its container's key with "[index]", where
// the index is what the analysis knows about the subscript:
//
//   "[3]"         a compile-time constant
//   "[i@ID]"      a local integer variable ("name@ID" as variable keys spell it), "[i@ID+1]",
//   "[i@ID-2]"    or that variable plus a constant
//   "[1-i@ID]"    a constant minus that variable (`1 - i`: the other of a pair)
//   "[i@ID-*]"    that variable minus some constant beyond kExactOffset (an element of an
//   "[i@ID+*]"    iteration long past), or plus some constant beyond it
//   "[*]"         anything else: any element
//
// Two element keys of one container name different storage only when the analysis can tell the
// indices apart: two different constants, the same variable with different offsets (or `i` and
// a constant minus it that no integer makes equal: `i`, `1 - i`), or two different variables (the
// program keeps them apart; a dead variable's indices are forgotten). Every other pair (a
// constant and a variable, "[*]") may be the same element, so an access through one is checked
// against pending work through the other. Elements of a stream array are compared the same way,
// except that two different variables may name one stream (mayBeSameHandle). When a variable
// changes, the keys that mention it are rewritten: `++i` turns "[i+1]" into "[i]" (the same
// element, now one iteration later), an assignment the analysis cannot follow turns them into
// "[*]". A loop's start names the elements touched just before it through its variable
// (rebaseIndices).
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace clang {
class ASTContext;
class Expr;
class Stmt;
class ValueDecl;
} // namespace clang

namespace streamrace::analyzer {

// How far an offset is kept exactly; beyond it, loops could grow offsets without bound.
constexpr std::int64_t kExactOffset = 2;

// "name@ID": a variable's storage, unique per declaration.
std::string variableKey(const clang::ValueDecl* decl);

// Whether `key` names the storage `root` names or storage reached from it (a field, an element,
// what a method returns).
bool isRootedAt(llvm::StringRef key, llvm::StringRef root);

// The variable an index can be expressed in: a local integer variable (not a reference), so only
// the function's own statements change it. Null for anything else.
const clang::ValueDecl* indexVariable(const clang::Expr* expr);

// The bracket contents for subscript `index`.
std::string indexKey(const clang::Expr* index, const clang::ASTContext& context);

// Whether two storage keys may name the same storage (equal keys always do).
bool mayAlias(llvm::StringRef a, llvm::StringRef b);

// Whether two keys of handles (streams) may name the same one: as mayAlias, but `streams[a]` and
// `streams[b]` at two different variables may, as nothing keeps per-device indices apart. Only
// indices the analysis can tell apart make two streams, so a race is never claimed between what
// may be one stream.
bool mayBeSameHandle(llvm::StringRef a, llvm::StringRef b);

// `key` after the variable `variable` (a variable key) grew by `delta`.
std::string shiftIndices(llvm::StringRef key, llvm::StringRef variable, std::int64_t delta);

// `key` after `variable` took a value unrelated to the old one.
std::string forgetIndices(llvm::StringRef key, llvm::StringRef variable);

// `key` where `variable` has just been given `value` (an index as indexKey spells it) to start a
// loop: the elements touched before the loop are named through the loop's variable, so
// `full[0]`, touched before `for (i = 0; ...)`, is `full[i]` in the first iteration and
// `full[i-1]` in the second. Indices farther than kExactOffset from the value stay as they are.
// Only elements of `containers` (the keys of what the loop subscripts with its variable) are
// renamed: a loop over one array says nothing about another's elements.
std::string rebaseIndices(llvm::StringRef key, llvm::StringRef variable, llvm::StringRef value,
                          const std::set<std::string>& containers);

// The array and index of a subscript, built in (`a[i]`) or an overloaded operator[] (`v[i]`);
// both null when `stmt` is no subscript.
struct Subscript {
  const clang::Expr* base = nullptr;
  const clang::Expr* index = nullptr;
};
Subscript subscriptOf(const clang::Stmt* stmt);

// An index variable plus a constant: `i`, `i + 1`, `2 + i`, `n - 1`.
struct AffineIndex {
  const clang::ValueDecl* variable = nullptr;
  std::int64_t offset = 0;
};
std::optional<AffineIndex> affineIndex(const clang::Expr* expr, const clang::ASTContext& context);

// A constant minus an index variable plus a constant: `1 - i` is {i, 1}, `3 - (i + 1)` {i, 2}.
std::optional<AffineIndex> mirrorIndex(const clang::Expr* expr, const clang::ASTContext& context);

// The variable subscript `index` is a constant away from (or a constant minus), or null.
const clang::ValueDecl* offsetVariable(const clang::Expr* index, const clang::ASTContext& context);

// Whether subscript `index` is `variable` plus a constant.
bool isOffsetOf(const clang::Expr* index, const clang::ValueDecl* variable,
                const clang::ASTContext& context);

// `key` where `variable` (a parameter of a call analyzed in place) is replaced by `value`, the
// argument as indexKey spells it in the caller: `full[layer+1]` with layer = i is `full[i+1]`.
std::string substituteIndices(llvm::StringRef key, llvm::StringRef variable, llvm::StringRef value);

// `key` with every variable index made "[*]": how streams and events are named. The events of an
// array indexed by variables are one event, so a wait on `ready[i]` orders what the latest record
// of any `ready[...]` captured (see analyzer/README.md, Known limits). A stream's work keeps its
// element too, to tell `streams[i]` from `streams[1 - i]` (mayBeSameHandle).
std::string collapseIndices(llvm::StringRef key);

} // namespace streamrace::analyzer
