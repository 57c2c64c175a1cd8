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
//   "[~i@ID+1]"   (pending accesses only) the element `i + 1` named at one iteration of `i`, with
//                 the same iteration's value wherever the access spells it (correlateIndices)
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

// Correlated indices. A pending access made in a loop names its buffer and its stream through
// the loop's variable (`host[i]` written on `streams[i]`). Once the iteration is over, which
// element the access touched is no longer known, but that it touched buffer and stream at one
// value of `i` still is: `host[~i]` on `streams[~i]`. A correlated index is any element for
// every comparison (mayAlias, mayBeSameHandle); only resolveCorrelated, given the element a later
// access touches, says which stream the record ran on: that access of `host[1 - j]` met the
// record only if it ran on `streams[1 - j]`, another stream than `streams[j]`.

// `key` with the exact indices of `variable` made correlated ("[i+1]" to "[~i+1]"), the far
// ones any element. shiftIndices moves a correlated index with its variable.
std::string correlateIndices(llvm::StringRef key, llvm::StringRef variable);

// `key` with every variable index but the correlated ones made "[*]": how a record's stream
// element is kept past the iteration that made it.
std::string collapseLiveIndices(llvm::StringRef key);

// A pending access's buffer and stream element with the correlated indices that relate them
// kept: the stream's where the buffer names an element through that index (correlated, or still
// through the live variable), the buffer's where the stream keeps it. Any other correlated
// index says nothing and is made "[*]".
struct CorrelatedKeys {
  std::string buffer;
  std::string stream;
};
CorrelatedKeys correlatedKeys(llvm::StringRef buffer, llvm::StringRef stream);

// `key` with its correlated indices made "[*]": past the iteration of an enclosing loop, a
// finished inner loop's work is an earlier iteration's, no longer what a later access consumes.
std::string forgetCorrelated(llvm::StringRef key);

// A record's stream `element` as seen by an access of `accessBuffer` that may touch the record's
// `recordBuffer`: each correlated index is replaced by the value it must have had for the two
// to meet, or by any element.
std::string resolveCorrelated(llvm::StringRef element, llvm::StringRef recordBuffer,
                              llvm::StringRef accessBuffer);

// `key` with every variable index made "[*]": how streams and events are named. The events of an
// array indexed by variables are one event, so a wait on `ready[i]` orders what the latest record
// of any `ready[...]` captured (see analyzer/README.md, Known limits). A stream's work keeps its
// element too, to tell `streams[i]` from `streams[1 - i]` (mayBeSameHandle).
std::string collapseIndices(llvm::StringRef key);

// `key` with every index, constants too, made "[*]": what a loop over an array's elements names
// when it sets something of each (`cudaStreamCreateWithFlags(&streams[i], ...)` makes
// `streams[0]` non-blocking as well).
std::string anyElement(llvm::StringRef key);

} // namespace streamrace::analyzer
