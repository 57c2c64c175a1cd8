// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host's own reads, writes and frees of memory that stream work may still use.
#include "flow_walk.h"

#include "element_index.h"

#include "clang/AST/ASTContext.h"

#include <memory>

namespace streamrace::analyzer {

void FlowEngine::Walk::hostElementAccess(const clang::Expr* element, const clang::Expr* pointer,
                                         FlowState& state, const Frame& frame) {
  std::optional<std::string> buffer = keyOf(pointer, state, frame);
  if (!buffer) return;
  const clang::Stmt* current = element;
  const clang::Stmt* parent = frame.parents->getParent(const_cast<clang::Stmt*>(current));
  while (parent && llvm::isa<clang::ParenExpr, clang::MemberExpr>(parent)) {
    current = parent;
    parent = frame.parents->getParent(const_cast<clang::Stmt*>(current));
  }
  bool writes = false;
  if (const auto* binary = llvm::dyn_cast_or_null<clang::BinaryOperator>(parent))
    writes = binary->isAssignmentOp() && binary->getLHS() == current;
  if (const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent)) {
    if (unary->getOpcode() == clang::UO_AddrOf) return; // an address, not an access
    writes = unary->isIncrementDecrementOp();
  }
  ByteRange range;
  range.offset = keys_.byteOffsetOf(pointer, state, frame.thisKey);
  if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(element)) {
    std::optional<Polynomial> index = keys_.valueOf(subscript->getIdx(), state, frame.thisKey);
    range.offset =
        range.offset && index
            ? std::optional(*range.offset + index->scaled(keys_.sizeOf(element->getType())))
            : std::nullopt;
  }
  range.length = Polynomial::constant(keys_.sizeOf(element->getType()));
  if (options_.adviseSyncs) host_.touched.insert(*buffer);
  hostAccess(*buffer, range, writes, element, state, frame);
}

void FlowEngine::Walk::hostAccess(const std::string& buffer, const ByteRange& range, bool writes,
                                  const clang::Stmt* access, const FlowState& state,
                                  const Frame& frame) {
  if (!frame.reporting) return;
  auto memory = state.memory->find(buffer);
  if (memory == state.memory->end() || memory->second != MemoryKind::Pinned) return;
  for (const auto& [record, orderedAfter] : *state.pending) {
    if (!sameBytes(record, buffer, range) || !conflicting(record, writes, false)) continue;
    const std::string operation = writes ? "write" : "read";
    notify({LaterAccess::HostAccess, record, details_[record], buffer, record.stream, !writes,
            writes, operation, *access, frame, hostWaitMayHang(record, state)});
    return;
  }
}

void FlowEngine::Walk::freeOnHost(const std::string& buffer, llvm::StringRef operation,
                                  const clang::Stmt* call, FlowState& state, const Frame& frame) {
  auto memory = state.memory->find(buffer);
  const bool pinned = memory != state.memory->end() && memory->second == MemoryKind::Pinned;
  if (frame.reporting && pinned)
    for (const auto& [record, orderedAfter] : *state.pending) {
      if (!mayAlias(record.buffer, buffer)) continue;
      notify({LaterAccess::HostFree, record, details_[record], buffer, record.stream, false, true,
              operation.str(), *call, frame, hostWaitMayHang(record, state)});
      break;
    }
  dropRecordsOf(buffer, state);
  eraseEntry(state.memory, buffer);
}

bool FlowEngine::Walk::hostWaitMayHang(const AccessRecord& record, const FlowState& state) {
  return state.spinningStreams->contains(record.stream);
}

void FlowEngine::Walk::notify(const UnorderedAccess& pair) const {
  for (const std::unique_ptr<Check>& check : checks_)
    check->onUnorderedAccess(pair);
}
} // namespace streamrace::analyzer
