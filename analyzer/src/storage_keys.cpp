// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "storage_keys.h"

#include "call_model.h"
#include "element_index.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

namespace streamrace::analyzer {

std::optional<std::string> StorageKeys::keyOf(const clang::Expr* expr, const FlowState& state,
                                              llvm::StringRef thisKey) const {
  if (!expr) return std::nullopt;
  expr = expr->IgnoreParenCasts();
  if (const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultArgExpr>(expr))
    return keyOf(defaulted->getExpr(), state, thisKey);
  if (const auto* temporary = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(expr))
    return keyOf(temporary->getSubExpr(), state, thisKey);
  if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr)) {
    const clang::ValueDecl* decl = reference->getDecl();
    if (!llvm::isa<clang::VarDecl>(decl)) return std::nullopt;
    if (auto alias = state.aliases->find(decl); alias != state.aliases->end()) return alias->second;
    return variableKey(decl);
  }
  if (llvm::isa<clang::CXXThisExpr>(expr)) return thisKey.str();
  if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(expr)) {
    std::optional<std::string> field = fieldKeyOf(*member, state, thisKey);
    if (!field) return std::nullopt;
    if (auto alias = state.fieldAliases->find(*field); alias != state.fieldAliases->end())
      return alias->second;
    return field;
  }
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(expr)) {
    if (unary->getOpcode() == clang::UO_AddrOf) {
      const clang::Expr* operand = unary->getSubExpr()->IgnoreParenCasts();
      if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(operand))
        if (!subscript->getType()->isPointerType())
          return keyOf(subscript->getBase(), state, thisKey);
      return keyOf(operand, state, thisKey);
    }
    if (unary->getOpcode() == clang::UO_Deref) {
      std::optional<std::string> base = keyOf(unary->getSubExpr(), state, thisKey);
      return base ? std::optional(*base + "[0]") : std::nullopt;
    }
    return std::nullopt;
  }
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expr)) {
    if (!binary->isAdditiveOp()) return std::nullopt;
    const clang::Expr* pointer =
        binary->getLHS()->getType()->isPointerType() ? binary->getLHS() : binary->getRHS();
    return pointer->getType()->isPointerType() ? keyOf(pointer, state, thisKey) : std::nullopt;
  }
  if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(expr))
    return elementKey(subscript->getBase(), subscript->getIdx(), state, thisKey);
  if (const auto* operatorCall = llvm::dyn_cast<clang::CXXOperatorCallExpr>(expr)) {
    if (operatorCall->getOperator() == clang::OO_Subscript && operatorCall->getNumArgs() == 2)
      return elementKey(operatorCall->getArg(0), operatorCall->getArg(1), state, thisKey);
    if (operatorCall->getOperator() == clang::OO_Arrow && operatorCall->getNumArgs() == 1)
      return smartPointerKey(operatorCall->getArg(0), state, thisKey);
    return std::nullopt;
  }
  if (const auto* memberCall = llvm::dyn_cast<clang::CXXMemberCallExpr>(expr)) {
    const clang::CXXMethodDecl* method = memberCall->getMethodDecl();
    std::optional<std::string> object =
        keyOf(memberCall->getImplicitObjectArgument(), state, thisKey);
    if (!method || !object || memberCall->getNumArgs() != 0) return std::nullopt;
    // A wrapper used as the handle it converts to is that handle.
    if (llvm::isa<clang::CXXConversionDecl>(method)) return object;
    if (const clang::Expr* field = fieldReturnedBy(*method)) return keyOf(field, state, *object);
    return methodResultKey(*object, method->getNameAsString());
  }
  return std::nullopt;
}

std::string methodResultKey(llvm::StringRef object, llvm::StringRef method) {
  return (object + "." + method + "()").str();
}

std::optional<std::string> StorageKeys::fieldKeyOf(const clang::MemberExpr& member,
                                                   const FlowState& state,
                                                   llvm::StringRef thisKey) const {
  std::optional<std::string> base = keyOf(member.getBase(), state, thisKey);
  if (!base) return std::nullopt;
  // A key names what a pointer points to, so `p->f` and `(*p).f` are one field, as are
  // `this->f` in a method and `object.f` where it is called.
  return *base + "." + member.getMemberDecl()->getNameAsString();
}

std::optional<std::string> StorageKeys::smartPointerKey(const clang::Expr* object,
                                                        const FlowState& state,
                                                        llvm::StringRef thisKey) const {
  std::optional<std::string> key = keyOf(object, state, thisKey);
  if (!key) return std::nullopt;
  // `p->` is what `p.get()` returns wherever the class has one (std::unique_ptr,
  // std::shared_ptr, RAII wrappers), so both spellings name one pointer.
  const clang::CXXRecordDecl* record = object->getType()->getAsCXXRecordDecl();
  if (!record) return *key + ".operator->()";
  const auto get = std::find_if(record->method_begin(), record->method_end(),
                                [](const clang::CXXMethodDecl* method) {
                                  return method->getDeclName().isIdentifier() &&
                                         method->getName() == "get" && method->getNumParams() == 0;
                                });
  if (get == record->method_end()) return *key + ".operator->()";
  if (const clang::Expr* field = fieldReturnedBy(**get)) return keyOf(field, state, *key);
  return *key + ".get()";
}

const clang::Expr* returnedBy(const clang::CXXMethodDecl& method) {
  const clang::FunctionDecl* definition = nullptr;
  if (method.getNumParams() != 0 || !method.hasBody(definition)) return nullptr;
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(definition->getBody());
  if (!body || body->size() != 1) return nullptr;
  const auto* returned = llvm::dyn_cast<clang::ReturnStmt>(body->body_front());
  return returned ? returned->getRetValue() : nullptr;
}

const clang::MemberExpr* fieldReturnedBy(const clang::CXXMethodDecl& method) {
  const clang::Expr* returned = returnedBy(method);
  if (!returned) return nullptr;
  const auto* member = llvm::dyn_cast<clang::MemberExpr>(returned->IgnoreParenCasts());
  return member && llvm::isa<clang::FieldDecl>(member->getMemberDecl()) &&
                 llvm::isa<clang::CXXThisExpr>(member->getBase()->IgnoreParenImpCasts())
             ? member
             : nullptr;
}

std::optional<std::string> StorageKeys::elementKey(const clang::Expr* base,
                                                   const clang::Expr* index, const FlowState& state,
                                                   llvm::StringRef thisKey) const {
  std::optional<std::string> container = keyOf(base, state, thisKey);
  if (!container) return std::nullopt;
  return *container + "[" + indexKeyOf(index, state) + "]";
}

std::string StorageKeys::indexKeyOf(const clang::Expr* index, const FlowState& state) const {
  std::string key = indexKey(index, context_);
  // An index through an integer parameter is the caller's argument.
  if (const clang::ValueDecl* variable = offsetVariable(index, context_))
    if (auto bound = state.integers->find(variable); bound != state.integers->end()) {
      const std::string element =
          substituteIndices("[" + key + "]", variableKey(variable), bound->second.index);
      return element.substr(1, element.size() - 2);
    }
  return key;
}

std::optional<std::string> StorageKeys::streamKeyOf(const clang::Expr* expr, bool perThreadDefault,
                                                    const FlowState& state,
                                                    llvm::StringRef thisKey) const {
  std::optional<std::string> element = streamElementOf(expr, perThreadDefault, state, thisKey);
  return element ? std::optional(collapseIndices(*element)) : std::nullopt;
}

std::optional<std::string> StorageKeys::streamElementOf(const clang::Expr* expr,
                                                        bool perThreadDefault,
                                                        const FlowState& state,
                                                        llvm::StringRef thisKey) const {
  const llvm::StringRef defaultStream = perThreadDefault ? kPerThreadStream : kLegacyStream;
  if (!expr) return defaultStream.str();
  const clang::Expr* bare = expr->IgnoreParenCasts();
  if (const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultArgExpr>(bare))
    return streamElementOf(defaulted->getExpr(), perThreadDefault, state, thisKey);
  if (bare->isNullPointerConstant(context_, clang::Expr::NPC_ValueDependentIsNotNull))
    return defaultStream.str();
  if (const auto* literal = llvm::dyn_cast<clang::IntegerLiteral>(bare)) {
    const uint64_t value = literal->getValue().getZExtValue();
    if (value == api_model::kLegacyStreamHandle) return kLegacyStream.str();
    if (value == api_model::kPerThreadStreamHandle) return kPerThreadStream.str();
    return std::nullopt;
  }
  return keyOf(expr, state, thisKey);
}

std::optional<std::string> StorageKeys::handleKeyOf(const clang::Expr* expr, const FlowState& state,
                                                    llvm::StringRef thisKey) const {
  std::optional<std::string> key = keyOf(expr, state, thisKey);
  return key ? std::optional(collapseIndices(*key)) : std::nullopt;
}

std::int64_t StorageKeys::sizeOf(clang::QualType type) const {
  if (type.isNull() || type->isVoidType() || type->isIncompleteType() || type->isDependentType())
    return 1;
  return context_.getTypeSizeInChars(type).getQuantity();
}

std::optional<std::string> StorageKeys::termText(const clang::Expr* expr, const FlowState& state,
                                                 llvm::StringRef thisKey) const {
  expr = expr->IgnoreParenCasts();
  if (std::optional<int64_t> constant = constantValue(expr, context_))
    return std::to_string(*constant);
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expr)) {
    std::optional<std::string> left = termText(binary->getLHS(), state, thisKey);
    std::optional<std::string> right = termText(binary->getRHS(), state, thisKey);
    if (!left || !right) return std::nullopt;
    return "(" + *left + binary->getOpcodeStr().str() + *right + ")";
  }
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(expr)) {
    std::optional<std::string> operand = termText(unary->getSubExpr(), state, thisKey);
    if (!operand) return std::nullopt;
    return "(" + clang::UnaryOperator::getOpcodeStr(unary->getOpcode()).str() + *operand + ")";
  }
  return keyOf(expr, state, thisKey);
}

std::optional<Polynomial> StorageKeys::valueOf(const clang::Expr* expr, const FlowState& state,
                                               llvm::StringRef thisKey) const {
  if (!expr) return std::nullopt;
  expr = expr->IgnoreParenCasts();
  if (std::optional<int64_t> constant = constantValue(expr, context_))
    return Polynomial::constant(*constant);
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expr)) {
    const clang::BinaryOperatorKind op = binary->getOpcode();
    if (op == clang::BO_Add || op == clang::BO_Sub || op == clang::BO_Mul) {
      std::optional<Polynomial> left = valueOf(binary->getLHS(), state, thisKey);
      std::optional<Polynomial> right = valueOf(binary->getRHS(), state, thisKey);
      if (!left || !right) return std::nullopt;
      if (op == clang::BO_Add) return *left + *right;
      if (op == clang::BO_Sub) return *left - *right;
      return *left * *right;
    }
  }
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(expr)) {
    if (unary->getOpcode() == clang::UO_Minus)
      if (std::optional<Polynomial> operand = valueOf(unary->getSubExpr(), state, thisKey))
        return operand->scaled(-1);
    if (unary->getOpcode() == clang::UO_Plus) return valueOf(unary->getSubExpr(), state, thisKey);
  }
  if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr))
    if (auto bound = state.integers->find(reference->getDecl()); bound != state.integers->end())
      return bound->second.value;
  if (std::optional<std::string> text = termText(expr, state, thisKey))
    return Polynomial::atom(*text);
  return std::nullopt;
}

std::optional<Polynomial> StorageKeys::byteOffsetOf(const clang::Expr* pointer,
                                                    const FlowState& state,
                                                    llvm::StringRef thisKey) const {
  if (!pointer) return std::nullopt;
  const clang::Expr* expr = pointer->IgnoreParenCasts();
  if (const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultArgExpr>(expr))
    return byteOffsetOf(defaulted->getExpr(), state, thisKey);
  if (const auto* temporary = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(expr))
    return byteOffsetOf(temporary->getSubExpr(), state, thisKey);
  if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr)) {
    const clang::ValueDecl* decl = reference->getDecl();
    if (!state.aliases->contains(decl)) return Polynomial();
    auto offset = state.aliasOffsets->find(decl);
    return offset == state.aliasOffsets->end() ? Polynomial() : offset->second;
  }
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(expr)) {
    if (unary->getOpcode() != clang::UO_AddrOf) return Polynomial();
    const auto* subscript =
        llvm::dyn_cast<clang::ArraySubscriptExpr>(unary->getSubExpr()->IgnoreParenCasts());
    if (!subscript || subscript->getType()->isPointerType()) return Polynomial();
    std::optional<Polynomial> base = byteOffsetOf(subscript->getBase(), state, thisKey);
    std::optional<Polynomial> index = valueOf(subscript->getIdx(), state, thisKey);
    if (!base || !index) return std::nullopt;
    return *base + index->scaled(sizeOf(subscript->getType()));
  }
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expr)) {
    if (!binary->isAdditiveOp()) return Polynomial();
    const bool pointerOnLeft = binary->getLHS()->getType()->isPointerType();
    const clang::Expr* base = pointerOnLeft ? binary->getLHS() : binary->getRHS();
    const clang::Expr* distance = pointerOnLeft ? binary->getRHS() : binary->getLHS();
    if (!base->getType()->isPointerType() || distance->getType()->isPointerType())
      return Polynomial();
    std::optional<Polynomial> start = byteOffsetOf(base, state, thisKey);
    std::optional<Polynomial> elements = valueOf(distance, state, thisKey);
    if (!start || !elements) return std::nullopt;
    const std::int64_t scale = sizeOf(base->getType()->getPointeeType());
    return binary->getOpcode() == clang::BO_Sub ? *start - elements->scaled(scale)
                                                : *start + elements->scaled(scale);
  }
  return Polynomial();
}

std::string displayName(llvm::StringRef key) {
  std::string shown;
  if (key.consume_front("this.")) shown = "this->";
  for (std::size_t i = 0; i < key.size(); ++i) {
    // A correlated index (element_index.h) names no element the reader could write.
    if (key[i] == '[' && key.find(']', i) != llvm::StringRef::npos &&
        key.slice(i, key.find(']', i)).contains('~')) {
      shown += "[*]";
      i = key.find(']', i);
      continue;
    }
    if (key[i] != '@') {
      shown += key[i];
      continue;
    }
    while (i + 1 < key.size() && llvm::isHexDigit(key[i + 1]))
      ++i;
  }
  return shown;
}

std::string streamDisplayName(llvm::StringRef key) {
  if (key == kLegacyStream) return "the legacy default stream";
  if (key == kPerThreadStream) return "the per-thread default stream";
  return "stream '" + displayName(key) + "'";
}

namespace {

// The variable a key's root names as `function` sees it: one of its parameters or locals, or a
// global it can name.
const clang::VarDecl* visibleVariable(llvm::StringRef root, const clang::FunctionDecl& function) {
  auto named = [&](const clang::Decl* decl) -> const clang::VarDecl* {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
    return var && variableKey(var) == root ? var : nullptr;
  };
  for (const clang::ParmVarDecl* parameter : function.parameters())
    if (named(parameter)) return parameter;
  std::vector<const clang::Stmt*> statements{function.getBody()};
  while (!statements.empty()) {
    const clang::Stmt* statement = statements.back();
    statements.pop_back();
    if (!statement) continue;
    if (const auto* declaration = llvm::dyn_cast<clang::DeclStmt>(statement))
      for (const clang::Decl* decl : declaration->decls())
        if (const clang::VarDecl* var = named(decl)) return var;
    statements.insert(statements.end(), statement->child_begin(), statement->child_end());
  }
  const llvm::StringRef name = root.take_until([](char c) { return c == '@'; });
  clang::IdentifierInfo& identifier = function.getASTContext().Idents.get(name);
  for (const clang::DeclContext* scope = function.getDeclContext(); scope;
       scope = scope->getParent())
    for (const clang::NamedDecl* decl : scope->lookup(&identifier))
      if (const clang::VarDecl* var = named(decl); var && var->hasGlobalStorage()) return var;
  return nullptr;
}

// Whether code in `function` may name `member` of `record`.
bool accessible(const clang::NamedDecl& member, const clang::CXXRecordDecl& record,
                const clang::FunctionDecl& function) {
  if (member.getAccess() == clang::AS_public || member.getAccess() == clang::AS_none) return true;
  const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&function);
  return method && method->getParent()->getCanonicalDecl() == record.getCanonicalDecl();
}

} // namespace

namespace {

// The member `name` (a field, or with `called` a method without parameters) of `record` as code
// in `function` may name it: a getter returning the field (what such code calls), or else the
// field itself; null if neither.
const clang::ValueDecl* accessibleMember(const clang::CXXRecordDecl& record, llvm::StringRef name,
                                         bool called, const clang::FunctionDecl& function) {
  if (called) {
    for (const clang::CXXMethodDecl* method : record.methods())
      if (method->getDeclName().isIdentifier() && method->getName() == name &&
          method->getNumParams() == 0 && accessible(*method, record, function))
        return method;
    return nullptr;
  }
  const clang::FieldDecl* field = nullptr;
  for (const clang::FieldDecl* candidate : record.fields())
    if (candidate->getName() == name) field = candidate;
  if (!field) return nullptr;
  for (const clang::CXXMethodDecl* method : record.methods())
    if (const clang::MemberExpr* returned = fieldReturnedBy(*method);
        returned && returned->getMemberDecl() == field && accessible(*method, record, function))
      return method;
  return accessible(*field, record, function) ? field : nullptr;
}

// The type of an element of `type`: of a pointer or array, or what a class's `operator[]`
// returns (a vector); null when unknown.
clang::QualType elementType(clang::QualType type) {
  if (type.isNull()) return type;
  if (type->isPointerType() || type->isArrayType())
    return clang::QualType(type->getPointeeOrArrayElementType(), 0);
  if (const clang::CXXRecordDecl* record = type->getAsCXXRecordDecl();
      record && record->hasDefinition())
    for (const clang::CXXMethodDecl* method : record->methods())
      if (method->getOverloadedOperator() == clang::OO_Subscript)
        return method->getReturnType().getNonReferenceType();
  return clang::QualType();
}

// `key` written in `function`'s terms: its root as a variable there, `->` after pointers, a
// private field through its public getter. Strict: nullopt wherever the text would not compile
// there. Otherwise what cannot be written so is shown as displayName shows it.
std::optional<std::string> spell(llvm::StringRef key, const clang::FunctionDecl& function,
                                 bool strict) {
  auto isSeparator = [](char c) { return c == '.' || c == '['; };
  const llvm::StringRef root = key.take_until(isSeparator);
  llvm::StringRef rest = key.drop_front(root.size());
  std::string text;
  clang::QualType type; // null once the walk no longer knows the type
  const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&function);
  if (root == "this" && method && !method->isStatic()) {
    text = "this";
    type = method->getThisType();
  } else if (const clang::VarDecl* var = visibleVariable(root, function)) {
    text = var->getNameAsString();
    type = var->getType().getNonReferenceType();
  } else if (strict) {
    return std::nullopt;
  } else {
    text = displayName(root);
  }
  while (!rest.empty()) {
    if (rest.front() == '[') {
      // An index may be a callee's variable: never spelled in a fix-it.
      if (strict) return std::nullopt;
      const std::size_t close = rest.find(']');
      if (close == llvm::StringRef::npos) return text + displayName(rest);
      text += displayName(rest.take_front(close + 1));
      rest = rest.drop_front(close + 1);
      type = elementType(type);
      continue;
    }
    if (!rest.consume_front(".")) {
      if (strict) return std::nullopt;
      return text + displayName(rest);
    }
    llvm::StringRef name = rest.take_until(isSeparator);
    rest = rest.drop_front(name.size());
    const bool called = name.consume_back("()");
    const bool pointer = !type.isNull() && type->isPointerType();
    const clang::CXXRecordDecl* record =
        type.isNull() ? nullptr
                      : (pointer ? type->getPointeeCXXRecordDecl() : type->getAsCXXRecordDecl());
    const clang::ValueDecl* member = record && record->hasDefinition()
                                         ? accessibleMember(*record, name, called, function)
                                         : nullptr;
    if (!member) {
      if (strict) return std::nullopt;
      text += (pointer ? "->" : ".") + name.str() + (called ? "()" : "");
      type = clang::QualType();
      continue;
    }
    const auto* getter = llvm::dyn_cast<clang::CXXMethodDecl>(member);
    text += (pointer ? "->" : ".") + member->getNameAsString() + (getter ? "()" : "");
    type = (getter ? getter->getReturnType() : member->getType()).getNonReferenceType();
  }
  return text;
}

} // namespace

std::optional<std::string> spellingIn(llvm::StringRef key, const clang::FunctionDecl& function) {
  return spell(key, function, true);
}

std::string displayNameIn(llvm::StringRef key, const clang::FunctionDecl& function) {
  // Not strict: every key has a spelling, if only its own text.
  return spell(key, function, false).value();
}

std::string streamDisplayNameIn(llvm::StringRef key, const clang::FunctionDecl& function) {
  if (key == kLegacyStream || key == kPerThreadStream) return streamDisplayName(key);
  return "stream '" + displayNameIn(key, function) + "'";
}

std::string streamSpelling(llvm::StringRef key, const clang::FunctionDecl& function) {
  if (key == kLegacyStream) return "cudaStreamLegacy";
  if (key == kPerThreadStream) return "cudaStreamPerThread";
  return spellingIn(key, function).value_or("");
}

} // namespace streamrace::analyzer
