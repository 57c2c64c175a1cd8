// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "element_index.h"

#include "call_model.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

namespace streamrace::analyzer {
namespace {

enum class IndexKind { Constant, Offset, FarBelow, FarAbove, Any };

// Views into the key it was parsed from (or into the variable key a rewrite names).
struct Index {
  IndexKind kind = IndexKind::Any;
  llvm::StringRef variable;
  std::int64_t value = 0; // the constant, or the offset from the variable
  // A constant minus the variable (`1 - i`, spelled "1-i@ID"; far ones "+*-i@ID", "-*-i@ID"):
  // the partner of i in a pair. Its value is that constant.
  bool mirrored = false;
};

// A key split at its subscripts: text[0] [indices[0]] text[1] [indices[1]] ... text[n].
struct SplitKey {
  std::vector<std::string> text;
  std::vector<Index> indices;
};

// The spelling of a correlated index's variable: the variable key behind "~".
constexpr char kCorrelatedMark = '~';

bool isCorrelated(const Index& index) {
  return index.variable.starts_with("~");
}

// Takes the "c-", "+*-" or "-*-" of a mirror off `contents`; the constant goes into `index`.
bool consumeMirror(llvm::StringRef& contents, Index& index) {
  if (contents.consume_front("+*-")) {
    index.kind = IndexKind::FarAbove;
  } else if (contents.consume_front("-*-")) {
    index.kind = IndexKind::FarBelow;
  } else {
    const std::size_t minus = contents.find('-', contents.starts_with("-") ? 1 : 0);
    if (minus == llvm::StringRef::npos || minus == 0 ||
        contents.take_front(minus).getAsInteger(10, index.value))
      return false;
    contents = contents.drop_front(minus + 1);
    index.kind = IndexKind::Offset;
  }
  index.mirrored = true;
  return true;
}

Index parseIndex(llvm::StringRef contents) {
  Index index;
  if (contents == "*") return index;
  std::int64_t constant = 0;
  if (!contents.getAsInteger(10, constant)) {
    index.kind = IndexKind::Constant;
    index.value = constant;
    return index;
  }
  Index mirror;
  const bool mirrored = consumeMirror(contents, mirror);
  const std::size_t at = contents.find('@');
  if (at == llvm::StringRef::npos) return index;
  std::size_t end = at + 1;
  while (end < contents.size() && llvm::isHexDigit(contents[end]))
    ++end;
  index.variable = contents.take_front(end);
  const llvm::StringRef offset = contents.drop_front(end);
  if (mirrored) {
    if (offset.empty()) {
      mirror.variable = index.variable;
      return mirror;
    }
  } else if (offset == "-*") {
    index.kind = IndexKind::FarBelow;
  } else if (offset == "+*") {
    index.kind = IndexKind::FarAbove;
  } else if (offset.empty() ||
             !offset.drop_front(offset.front() == '+' ? 1 : 0).getAsInteger(10, index.value)) {
    index.kind = IndexKind::Offset;
  }
  return index;
}

std::string formatMirror(const Index& index) {
  switch (index.kind) {
  case IndexKind::Offset:
    return std::to_string(index.value) + "-" + index.variable.str();
  case IndexKind::FarBelow:
    return "-*-" + index.variable.str();
  case IndexKind::FarAbove:
    return "+*-" + index.variable.str();
  case IndexKind::Constant:
  case IndexKind::Any:
    break;
  }
  return "*";
}

std::string formatIndex(const Index& index) {
  if (index.mirrored) return formatMirror(index);
  switch (index.kind) {
  case IndexKind::Constant:
    return std::to_string(index.value);
  case IndexKind::Offset:
    if (index.value == 0) return index.variable.str();
    return index.variable.str() + (index.value > 0 ? "+" : "") + std::to_string(index.value);
  case IndexKind::FarBelow:
    return index.variable.str() + "-*";
  case IndexKind::FarAbove:
    return index.variable.str() + "+*";
  case IndexKind::Any:
    return "*";
  }
  return "*";
}

SplitKey split(llvm::StringRef key) {
  SplitKey parts;
  std::string text;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key[i] != '[') {
      text += key[i];
      continue;
    }
    const std::size_t close = key.find(']', i);
    if (close == llvm::StringRef::npos) {
      text += key.drop_front(i).str();
      break;
    }
    parts.text.push_back(std::move(text));
    text.clear();
    parts.indices.push_back(parseIndex(key.slice(i + 1, close)));
    i = close;
  }
  parts.text.push_back(std::move(text));
  return parts;
}

std::string join(const SplitKey& parts) {
  std::string key = parts.text.front();
  for (std::size_t i = 0; i < parts.indices.size(); ++i)
    key += "[" + formatIndex(parts.indices[i]) + "]" + parts.text[i + 1];
  return key;
}

template <class Change> std::string rewrite(llvm::StringRef key, Change change) {
  if (!key.contains('[')) return key.str();
  SplitKey parts = split(key);
  for (Index& index : parts.indices)
    change(index);
  return join(parts);
}

// What two different variables say about two elements. Each side takes the reading that reports
// less: buffers at two variables (`buffers[i]`, `buffers[j]` of nested loops) are apart, so no
// conflict between them is claimed; handles at two variables (`streams[a]`, `streams[b]`) may
// be one stream, so no race between them is claimed.
enum class TwoVariables { Apart, MayMeet };

bool distinct(const Index& a, const Index& b, TwoVariables twoVariables) {
  if (a.kind == IndexKind::Constant && b.kind == IndexKind::Constant) return a.value != b.value;
  // A correlated index is some element: only resolveCorrelated tells which.
  if (isCorrelated(a) || isCorrelated(b)) return false;
  if (a.kind == IndexKind::Any || b.kind == IndexKind::Any || a.kind == IndexKind::Constant ||
      b.kind == IndexKind::Constant)
    return false;
  // A variable's keys are forgotten when it dies, so a finished loop's elements meet a later
  // loop's as "any element".
  if (a.variable != b.variable) return twoVariables == TwoVariables::Apart;
  if (a.mirrored != b.mirrored)
    // i + offset == constant - i needs an even difference: `i` and `1 - i` never meet.
    return a.kind == IndexKind::Offset && b.kind == IndexKind::Offset &&
           (a.value - b.value) % 2 != 0;
  // Two mirrors of one variable compare as two offsets do: by their constants.
  if (a.kind == IndexKind::Offset && b.kind == IndexKind::Offset) return a.value != b.value;
  if (a.kind == b.kind) return false;
  if (a.kind != IndexKind::Offset && b.kind != IndexKind::Offset) return true; // below vs above
  // An exact offset against the far side: apart when the offset is on the near side of the bound.
  const Index& exact = a.kind == IndexKind::Offset ? a : b;
  const Index& far = a.kind == IndexKind::Offset ? b : a;
  return far.kind == IndexKind::FarBelow ? exact.value >= -kExactOffset
                                         : exact.value <= kExactOffset;
}

// Runs on every pending access of every enqueue: a walk over both keys, allocating nothing.
bool mayMeet(llvm::StringRef a, llvm::StringRef b, TwoVariables twoVariables) {
  if (a == b) return true;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == '[' && b[j] == '[') {
      const std::size_t closeA = a.find(']', i);
      const std::size_t closeB = b.find(']', j);
      if (closeA == llvm::StringRef::npos || closeB == llvm::StringRef::npos) return false;
      if (distinct(parseIndex(a.slice(i + 1, closeA)), parseIndex(b.slice(j + 1, closeB)),
                   twoVariables))
        return false;
      i = closeA + 1;
      j = closeB + 1;
      continue;
    }
    if (a[i] != b[j]) return false;
    ++i;
    ++j;
  }
  return i == a.size() && j == b.size();
}

} // namespace

std::optional<AffineIndex> affineIndex(const clang::Expr* expr, const clang::ASTContext& context) {
  expr = expr->IgnoreParenCasts();
  if (const clang::ValueDecl* variable = indexVariable(expr)) return AffineIndex{variable, 0};
  const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expr);
  if (!binary || !binary->isAdditiveOp()) return std::nullopt;
  const bool subtract = binary->getOpcode() == clang::BO_Sub;
  if (std::optional<std::int64_t> constant = constantValue(binary->getRHS(), context))
    if (std::optional<AffineIndex> base = affineIndex(binary->getLHS(), context)) {
      base->offset += subtract ? -*constant : *constant;
      return base;
    }
  if (!subtract)
    if (std::optional<std::int64_t> constant = constantValue(binary->getLHS(), context))
      if (std::optional<AffineIndex> base = affineIndex(binary->getRHS(), context)) {
        base->offset += *constant;
        return base;
      }
  return std::nullopt;
}

std::optional<AffineIndex> mirrorIndex(const clang::Expr* expr, const clang::ASTContext& context) {
  const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expr->IgnoreParenCasts());
  if (!binary || binary->getOpcode() != clang::BO_Sub) return std::nullopt;
  const std::optional<std::int64_t> constant = constantValue(binary->getLHS(), context);
  std::optional<AffineIndex> subtracted =
      constant ? affineIndex(binary->getRHS(), context) : std::nullopt;
  if (!subtracted) return std::nullopt;
  return AffineIndex{subtracted->variable, *constant - subtracted->offset};
}

std::string variableKey(const clang::ValueDecl* decl) {
  return decl->getNameAsString() + "@" +
         llvm::utohexstr(reinterpret_cast<std::uintptr_t>(decl->getCanonicalDecl()), true);
}

bool isRootedAt(llvm::StringRef key, llvm::StringRef root) {
  return key.starts_with(root) &&
         (key.size() == root.size() || llvm::StringRef("[.-").contains(key[root.size()]));
}

const clang::ValueDecl* indexVariable(const clang::Expr* expr) {
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenCasts());
  if (!reference) return nullptr;
  const auto* variable = llvm::dyn_cast<clang::VarDecl>(reference->getDecl());
  if (!variable || !variable->hasLocalStorage() || !variable->getType()->isIntegerType())
    return nullptr;
  return variable;
}

std::string indexKey(const clang::Expr* index, const clang::ASTContext& context) {
  if (std::optional<std::int64_t> constant = constantValue(index, context))
    return std::to_string(*constant);
  if (std::optional<AffineIndex> affine = affineIndex(index, context))
    return formatIndex({IndexKind::Offset, variableKey(affine->variable), affine->offset});
  if (std::optional<AffineIndex> mirror = mirrorIndex(index, context);
      mirror && std::abs(mirror->offset) <= kExactOffset)
    return formatIndex({IndexKind::Offset, variableKey(mirror->variable), mirror->offset, true});
  return "*";
}

bool mayAlias(llvm::StringRef a, llvm::StringRef b) {
  return mayMeet(a, b, TwoVariables::Apart);
}

bool mayBeSameHandle(llvm::StringRef a, llvm::StringRef b) {
  return mayMeet(a, b, TwoVariables::MayMeet);
}

std::string shiftIndices(llvm::StringRef key, llvm::StringRef variable, std::int64_t delta) {
  const std::string correlated = kCorrelatedMark + variable.str();
  return rewrite(key, [&](Index& index) {
    if (index.variable != variable && index.variable != correlated) return;
    // A correlated index moves with its variable (it is the variable's value of one iteration,
    // named as live indices are); beyond the exact offsets it relates to nothing.
    const bool correlatedIndex = isCorrelated(index);
    // The element `variable + value` is, after the change, `variable + value - delta`; the
    // element `value - variable` is `value + delta - variable`.
    const std::int64_t step = index.mirrored ? -delta : delta;
    switch (index.kind) {
    case IndexKind::Offset: {
      const std::int64_t moved = index.value - step;
      if (moved < -kExactOffset && moved < index.value)
        index.kind = IndexKind::FarBelow;
      else if (moved > kExactOffset && moved > index.value)
        index.kind = IndexKind::FarAbove;
      else
        index.value = moved;
      if (correlatedIndex && index.kind != IndexKind::Offset) index = Index{};
      return;
    }
    case IndexKind::FarBelow:
      if (step < 0) index = Index{};
      return;
    case IndexKind::FarAbove:
      if (step > 0) index = Index{};
      return;
    case IndexKind::Constant:
    case IndexKind::Any:
      return;
    }
  });
}

std::string forgetIndices(llvm::StringRef key, llvm::StringRef variable) {
  return rewrite(key, [&](Index& index) {
    if (index.variable == variable) index = Index{};
  });
}

std::string rebaseIndices(llvm::StringRef key, llvm::StringRef variable, llvm::StringRef value,
                          const std::set<std::string>& containers) {
  const Index start = parseIndex(value);
  if ((start.kind != IndexKind::Constant && start.kind != IndexKind::Offset) || start.mirrored ||
      !key.contains('['))
    return key.str();
  SplitKey parts = split(key);
  std::string container;
  for (std::size_t i = 0; i < parts.indices.size(); ++i) {
    container += parts.text[i];
    Index& index = parts.indices[i];
    const bool related = start.kind == IndexKind::Constant
                             ? index.kind == IndexKind::Constant
                             : index.kind == IndexKind::Offset && !index.mirrored &&
                                   index.variable == start.variable;
    const std::int64_t offset = index.value - start.value;
    if (related && index.variable != variable && containers.contains(container) &&
        offset >= -kExactOffset && offset <= kExactOffset)
      index = Index{IndexKind::Offset, variable, offset};
    container += "[" + formatIndex(index) + "]";
  }
  return join(parts);
}

Subscript subscriptOf(const clang::Stmt* stmt) {
  if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(stmt))
    return {subscript->getBase(), subscript->getIdx()};
  if (const auto* call = llvm::dyn_cast<clang::CXXOperatorCallExpr>(stmt);
      call && call->getOperator() == clang::OO_Subscript && call->getNumArgs() == 2)
    return {call->getArg(0), call->getArg(1)};
  return {};
}

const clang::ValueDecl* offsetVariable(const clang::Expr* index, const clang::ASTContext& context) {
  std::optional<AffineIndex> affine = affineIndex(index, context);
  if (!affine) affine = mirrorIndex(index, context);
  return affine ? affine->variable : nullptr;
}

bool isOffsetOf(const clang::Expr* index, const clang::ValueDecl* variable,
                const clang::ASTContext& context) {
  const std::optional<AffineIndex> affine = affineIndex(index, context);
  return affine && affine->variable == variable;
}

std::string substituteIndices(llvm::StringRef key, llvm::StringRef variable,
                              llvm::StringRef value) {
  const Index replacement = parseIndex(value);
  auto sign = [](const Index& index) { return index.mirrored ? -1 : 1; };
  return rewrite(key, [&](Index& index) {
    if (index.variable != variable) return;
    if (index.kind != IndexKind::Offset ||
        (replacement.kind != IndexKind::Offset && replacement.kind != IndexKind::Constant)) {
      index = Index{};
      return;
    }
    // index = s·variable + v with variable = t·y + w (or the constant w): s·t·y + s·w + v.
    const std::int64_t constant = sign(index) * replacement.value + index.value;
    if (replacement.kind == IndexKind::Constant) {
      index = Index{IndexKind::Constant, {}, constant};
      return;
    }
    if (std::abs(constant) <= kExactOffset)
      index = Index{IndexKind::Offset, replacement.variable, constant,
                    sign(index) * sign(replacement) < 0};
    else
      index = Index{};
  });
}

std::string collapseIndices(llvm::StringRef key) {
  return rewrite(key, [](Index& index) {
    if (index.kind != IndexKind::Constant) index = Index{};
  });
}

std::string anyElement(llvm::StringRef key) {
  return rewrite(key, [](Index& index) { index = Index{}; });
}

std::string correlateIndices(llvm::StringRef key, llvm::StringRef variable) {
  const std::string correlated = kCorrelatedMark + variable.str();
  return rewrite(key, [&](Index& index) {
    if (index.variable != variable) return;
    if (index.kind == IndexKind::Offset)
      index.variable = correlated;
    else
      index = Index{};
  });
}

std::string collapseLiveIndices(llvm::StringRef key) {
  return rewrite(key, [](Index& index) {
    if (index.kind != IndexKind::Constant && !isCorrelated(index)) index = Index{};
  });
}

CorrelatedKeys correlatedKeys(llvm::StringRef buffer, llvm::StringRef stream) {
  if (!buffer.contains(kCorrelatedMark) && !stream.contains(kCorrelatedMark))
    return {buffer.str(), stream.str()};
  const SplitKey bufferParts = split(buffer);
  // Whether the buffer names an element through `correlated` or the live variable it stands for.
  auto inBuffer = [&](llvm::StringRef correlated) {
    return std::any_of(
        bufferParts.indices.begin(), bufferParts.indices.end(), [&](const Index& index) {
          return index.kind == IndexKind::Offset &&
                 (index.variable == correlated || index.variable == correlated.drop_front());
        });
  };
  CorrelatedKeys keys;
  keys.stream = rewrite(stream, [&](Index& index) {
    if (isCorrelated(index) && !inBuffer(index.variable)) index = Index{};
  });
  const SplitKey streamParts = split(keys.stream);
  keys.buffer = rewrite(buffer, [&](Index& index) {
    if (isCorrelated(index) &&
        std::none_of(streamParts.indices.begin(), streamParts.indices.end(),
                     [&](const Index& other) { return other.variable == index.variable; }))
      index = Index{};
  });
  return keys;
}

std::string forgetCorrelated(llvm::StringRef key) {
  return rewrite(key, [](Index& index) {
    if (isCorrelated(index)) index = Index{};
  });
}

namespace {

// The value of `correlated` (spelled as indexKey spells an index) the access of `accessBuffer`
// implies, when it touches the element of `recordBuffer` the record names through it; nullopt
// where nothing says. While the loop that made the record still runs, its buffer names the
// element through the live variable and nothing is said: one loop's iterations are work meant to
// run side by side (devices that exchange data through flags their kernels poll, which the
// analysis does not see), a finished loop's is work a later statement consumes.
std::optional<std::string> correlatedValue(llvm::StringRef correlated, const SplitKey& recordBuffer,
                                           const SplitKey& accessBuffer) {
  if (recordBuffer.text != accessBuffer.text) return std::nullopt;
  auto sign = [](const Index& index) { return index.mirrored ? -1 : 1; };
  for (std::size_t i = 0; i < recordBuffer.indices.size(); ++i) {
    const Index& record = recordBuffer.indices[i];
    const Index& access = accessBuffer.indices[i];
    if (record.kind != IndexKind::Offset || record.variable != correlated) continue;
    // sign(record)·value + record.value = the access's index, solved for the value.
    if (access.kind == IndexKind::Constant)
      return formatIndex({IndexKind::Constant, {}, sign(record) * (access.value - record.value)});
    if (access.kind == IndexKind::Offset && !isCorrelated(access))
      return formatIndex({IndexKind::Offset, access.variable,
                          sign(record) * (access.value - record.value),
                          sign(record) * sign(access) < 0});
  }
  return std::nullopt;
}

} // namespace

std::string resolveCorrelated(llvm::StringRef element, llvm::StringRef recordBuffer,
                              llvm::StringRef accessBuffer) {
  if (!element.contains(kCorrelatedMark)) return element.str();
  const SplitKey record = split(recordBuffer);
  const SplitKey access = split(accessBuffer);
  std::set<std::string> correlated;
  for (const Index& index : split(element).indices)
    if (isCorrelated(index)) correlated.insert(index.variable.str());
  std::string resolved = element.str();
  for (const std::string& variable : correlated) {
    const std::optional<std::string> value = correlatedValue(variable, record, access);
    resolved =
        value ? substituteIndices(resolved, variable, *value) : forgetIndices(resolved, variable);
  }
  return resolved;
}

} // namespace streamrace::analyzer
