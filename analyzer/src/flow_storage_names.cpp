// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What an expression names: storage keys, streams, handles, byte ranges; aliases bound.
#include "flow_walk.h"

#include "element_index.h"
#include "synchronous_api.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

#include <set>

namespace streamrace::analyzer {

std::optional<std::string> FlowEngine::Walk::keyOf(const clang::Expr* expr, const FlowState& state,
                                                   const Frame& frame) const {
  return keys_.keyOf(expr, state, frame.thisKey);
}

std::optional<std::string> FlowEngine::Walk::streamKeyOf(const clang::Expr* expr,
                                                         bool perThreadDefault, FlowState& state,
                                                         const Frame& frame) const {
  std::optional<std::string> key = keys_.streamKeyOf(expr, perThreadDefault, state, frame.thisKey);
  if (key && streamStorage_.createdNonBlocking(expr)) insertEntry(state.nonBlockingStreams, *key);
  // Storage that only this translation unit's stream creations fill holds streams the program
  // made, whichever object holds it: the object's setup is here (a store of a caller's stream in
  // another translation unit would not be seen).
  if (key && streamStorage_.holdsOnlyCreatedStreams(expr)) insertEntry(state.programStreams, *key);
  return key;
}

std::string FlowEngine::Walk::streamElementOf(const CallEffect& effect, llvm::StringRef stream,
                                              const FlowState& state, const Frame& frame) const {
  return keys_.streamElementOf(effect.stream, effect.perThreadDefaultStream, state, frame.thisKey)
      .value_or(stream.str());
}

std::optional<std::string> FlowEngine::Walk::handleKeyOf(const clang::Expr* expr,
                                                         const FlowState& state,
                                                         const Frame& frame) const {
  return keys_.handleKeyOf(expr, state, frame.thisKey);
}

ByteRange FlowEngine::Walk::rangeOf(const BufferUse& use, const FlowState& state,
                                    const Frame& frame) const {
  ByteRange range;
  range.offset = keys_.byteOffsetOf(use.expr, state, frame.thisKey);
  range.part = use.part;
  const Extent& extent = use.extent;
  if (extent.bytes) {
    if (std::optional<Polynomial> count = keys_.valueOf(extent.bytes, state, frame.thisKey))
      range.length = count->scaled(extent.unitBytes);
  } else if (extent.elements) {
    const std::optional<int64_t> datatype = constantValue(extent.datatype, context_);
    const std::optional<std::size_t> size =
        datatype ? api_model::ncclDataTypeSize(static_cast<int>(*datatype)) : std::nullopt;
    if (std::optional<Polynomial> count = keys_.valueOf(extent.elements, state, frame.thisKey);
        count && size)
      range.length = count->scaled(static_cast<std::int64_t>(*size));
  } else if (extent.width && extent.height && extent.pitch) {
    std::optional<Polynomial> width = keys_.valueOf(extent.width, state, frame.thisKey);
    std::optional<Polynomial> height = keys_.valueOf(extent.height, state, frame.thisKey);
    std::optional<Polynomial> pitch = keys_.valueOf(extent.pitch, state, frame.thisKey);
    if (width && height && pitch)
      range.length = (*height - Polynomial::constant(1)) * *pitch + *width;
  } else if (extent.firstRow && extent.endRow && extent.rowWidth) {
    std::optional<Polynomial> first = keys_.valueOf(extent.firstRow, state, frame.thisKey);
    std::optional<Polynomial> end = keys_.valueOf(extent.endRow, state, frame.thisKey);
    std::optional<Polynomial> width = keys_.valueOf(extent.rowWidth, state, frame.thisKey);
    if (first && end && width && range.offset) {
      const Polynomial rowBytes = width->scaled(extent.unitBytes);
      *range.offset = *range.offset + (*first - Polynomial::constant(extent.rowsBefore)) * rowBytes;
      range.length =
          (*end - *first + Polynomial::constant(extent.rowsBefore + extent.rowsAfter)) * rowBytes;
    }
  }
  return range;
}

bool FlowEngine::Walk::sameBytes(const AccessRecord& record, const std::string& buffer,
                                 const ByteRange& range) {
  return mayAlias(record.buffer, buffer) && mayOverlap(record.range, range);
}

std::string FlowEngine::Walk::recordElementFor(const AccessRecord& record,
                                               const std::string& buffer) {
  if (!llvm::StringRef(record.streamElement).contains('~')) return record.streamElement;
  return resolveCorrelated(record.streamElement, record.buffer, buffer);
}

bool FlowEngine::Walk::conflicting(const AccessRecord& record, bool write, bool atomic) {
  return (record.write || write) && !(record.atomic && atomic);
}

bool FlowEngine::Walk::isBlocking(llvm::StringRef stream, const FlowState& state) const {
  return !state.nonBlockingStreams->contains(stream.str()) &&
         !state.nonBlockingStreams->contains(anyElement(stream));
}

bool FlowEngine::Walk::orderedBefore(const AccessRecord& record,
                                     const std::set<std::string>& orderedAfter,
                                     llvm::StringRef stream, llvm::StringRef element,
                                     const FlowState& state) const {
  return orderedBefore(record, record.streamElement, orderedAfter, stream, element, state);
}

bool FlowEngine::Walk::orderedBefore(const AccessRecord& record, llvm::StringRef recordElement,
                                     const std::set<std::string>& orderedAfter,
                                     llvm::StringRef stream, llvm::StringRef element,
                                     const FlowState& state) const {
  if (orderedAfter.contains(stream.str())) return true;
  if (stream.contains('[') && orderedAfter.contains(kEveryElementOf.str() + anyElement(stream)))
    return true;
  if (record.stream == stream && mayBeSameHandle(recordElement, element)) return true;
  const bool blocking = isBlocking(stream, state);
  if (stream == kLegacyStream && isBlocking(record.stream, state)) return true;
  return blocking && orderedAfter.contains(kEveryBlockingStream.str());
}

void FlowEngine::Walk::noteOwnedHostMemory(const clang::VarDecl& var, FlowState& state) {
  if (!var.hasLocalStorage() || var.getType()->isReferenceType()) return;
  const std::string key = variableKey(&var);
  if (context_.getAsConstantArrayType(var.getType()))
    setEntry(state.memory, key, MemoryKind::Pageable);
  else if (ownsPageableBuffer(var.getType()))
    setEntry(state.memory, methodResultKey(key, "data"), MemoryKind::Pageable);
}

void FlowEngine::Walk::bindVariable(const clang::VarDecl* var, const clang::Expr* init,
                                    FlowState& state, const Frame& frame) {
  const clang::QualType type = var->getType();
  if (!type->isPointerType() && !type->isReferenceType()) return;
  std::optional<std::string> target = keyOf(init, state, frame);
  if (target) {
    bindOffset(var, keys_.byteOffsetOf(init, state, frame.thisKey), state);
    setEntry(state.aliases, var, *target);
    return;
  }
  eraseEntry(state.aliases, var);
  eraseEntry(state.aliasOffsets, var);
  const clang::Expr* bare = init->IgnoreParenCasts();
  bool hostAllocation = llvm::isa<clang::CXXNewExpr>(bare);
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(bare))
    if (std::optional<CallEffect> effect =
            classifyCall(*call, options_.userModel, kernels_, context_))
      hostAllocation =
          effect->kind == CallEffectKind::Alloc && effect->allocatedMemory == MemoryKind::Pageable;
  const std::string key = variableKey(var);
  dropRecordsOf(key, state);
  if (hostAllocation)
    setEntry(state.memory, key, MemoryKind::Pageable);
  else
    eraseEntry(state.memory, key);
}

void FlowEngine::Walk::bindOffset(const clang::ValueDecl* var,
                                  const std::optional<Polynomial>& offset, FlowState& state) {
  if (offset && *offset == Polynomial())
    eraseEntry(state.aliasOffsets, var);
  else
    setEntry(state.aliasOffsets, var, offset);
}

std::optional<std::string> FlowEngine::Walk::outParameterKey(const clang::Expr* out,
                                                             FlowState& state,
                                                             const Frame& frame) const {
  if (!out) return std::nullopt;
  const auto* address = llvm::dyn_cast<clang::UnaryOperator>(out->IgnoreParenCasts());
  if (!address || address->getOpcode() != clang::UO_AddrOf) return std::nullopt;
  const clang::Expr* target = address->getSubExpr()->IgnoreParenCasts();
  if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(target))
    if (llvm::isa<clang::VarDecl>(reference->getDecl()) &&
        !reference->getDecl()->getType()->isReferenceType()) {
      eraseEntry(state.aliases, reference->getDecl());
      eraseEntry(state.aliasOffsets, reference->getDecl());
      return variableKey(reference->getDecl());
    }
  if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(target)) {
    std::optional<std::string> field = keys_.fieldKeyOf(*member, state, frame.thisKey);
    if (field) eraseEntry(state.fieldAliases, *field);
    return field;
  }
  return keyOf(target, state, frame);
}

void FlowEngine::Walk::initializeFields(const clang::VarDecl& var, const clang::Expr& init,
                                        FlowState& state, const Frame& frame) {
  const auto* list = llvm::dyn_cast<clang::InitListExpr>(init.IgnoreImplicit());
  const clang::RecordDecl* record = var.getType()->getAsRecordDecl();
  if (!list || !record || var.getType()->isReferenceType()) return;
  unsigned index = 0;
  for (const clang::FieldDecl* field : record->fields()) {
    if (index >= list->getNumInits()) break;
    const clang::Expr* value = list->getInit(index++);
    if (field->getType()->isPointerType())
      bindField(variableKey(&var) + "." + field->getNameAsString(), value, state, frame);
  }
}

void FlowEngine::Walk::initializeField(const clang::CXXCtorInitializer& initializer,
                                       FlowState& state, const Frame& frame) {
  const clang::FieldDecl* field = initializer.getMember();
  if (field && field->getType()->isPointerType() && initializer.getInit())
    bindField(frame.thisKey + "." + field->getNameAsString(), initializer.getInit(), state, frame);
}

void FlowEngine::Walk::bindField(const std::string& field, const clang::Expr* value,
                                 FlowState& state, const Frame& frame) const {
  std::optional<std::string> target = keyOf(value, state, frame);
  const std::optional<Polynomial> offset = keys_.byteOffsetOf(value, state, frame.thisKey);
  if (target && *target != field && offset && *offset == Polynomial())
    setEntry(state.fieldAliases, field, std::move(*target));
  else
    eraseEntry(state.fieldAliases, field);
}

void FlowEngine::Walk::dropRecordsOf(const std::string& buffer, FlowState& state) const {
  eraseIf(state.pending, [&](const auto& entry) { return entry.first.buffer == buffer; });
}
} // namespace streamrace::analyzer
