// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "field_memory.h"

#include "stream_storage.h"
#include "sub_statements.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace streamrace::analyzer {
namespace {

class AllocationCollector : public clang::RecursiveASTVisitor<AllocationCollector> {
public:
  AllocationCollector(const UserModel* userModel, const KernelSummaries& kernels,
                      clang::ASTContext& context,
                      std::map<const clang::FieldDecl*, MemoryKind>& kinds)
      : userModel_(userModel), kernels_(kernels), context_(context), kinds_(kinds) {}

  bool VisitCallExpr(clang::CallExpr* call) {
    std::optional<CallEffect> effect = classifyCall(*call, userModel_, kernels_, context_);
    if (!effect || effect->kind != CallEffectKind::Alloc) return true;
    const auto* field = llvm::dyn_cast_or_null<clang::FieldDecl>(storageOf(effect->outPointer));
    if (!field) return true;
    auto [slot, inserted] = kinds_.try_emplace(field, effect->allocatedMemory);
    if (!inserted && slot->second != effect->allocatedMemory) slot->second = MemoryKind::Unknown;
    return true;
  }

private:
  const UserModel* userModel_;
  const KernelSummaries& kernels_;
  clang::ASTContext& context_;
  std::map<const clang::FieldDecl*, MemoryKind>& kinds_;
};

// The field of `this` that `value` points into: `buf_`, `buf_ + n`, `_ubuf.dptr()`, `&rows_[0]`.
const clang::FieldDecl* ownFieldReached(const clang::Expr* value) {
  value = value->IgnoreParenCasts();
  if (const auto* arithmetic = llvm::dyn_cast<clang::BinaryOperator>(value);
      arithmetic && arithmetic->isAdditiveOp())
    return ownFieldReached(arithmetic->getLHS()->getType()->isPointerType() ? arithmetic->getLHS()
                                                                            : arithmetic->getRHS());
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(value))
    return unary->getOpcode() == clang::UO_AddrOf ? ownFieldReached(unary->getSubExpr()) : nullptr;
  if (const auto* element = llvm::dyn_cast<clang::ArraySubscriptExpr>(value))
    return ownFieldReached(element->getBase());
  if (const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(value))
    return call->getNumArgs() == 0 ? ownFieldReached(call->getImplicitObjectArgument()) : nullptr;
  const auto* member = llvm::dyn_cast<clang::MemberExpr>(value);
  if (!member || !llvm::isa<clang::CXXThisExpr>(member->getBase()->IgnoreParenImpCasts()))
    return nullptr;
  return llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
}

// Adds the fields the public methods of `record` return pointers into.
void collectHandedOut(const clang::CXXRecordDecl& record, std::set<const clang::FieldDecl*>& out) {
  for (const clang::CXXMethodDecl* method : record.methods()) {
    const clang::FunctionDecl* definition = method->getDefinition();
    if (method->getAccess() != clang::AS_public || !method->isInstance() || !definition ||
        !method->getReturnType()->isPointerType() || !definition->getBody())
      continue;
    forEachStatement(definition->getBody(), [&](const clang::Stmt& stmt) {
      if (const auto* result = llvm::dyn_cast<clang::ReturnStmt>(&stmt);
          result && result->getRetValue())
        if (const clang::FieldDecl* field = ownFieldReached(result->getRetValue()))
          out.insert(field);
    });
  }
}

} // namespace

FieldMemory::FieldMemory(const std::vector<const clang::FunctionDecl*>& functions,
                         const UserModel* userModel, const KernelSummaries& kernels,
                         clang::ASTContext& context) {
  AllocationCollector collector(userModel, kernels, context, kinds_);
  std::set<const clang::CXXRecordDecl*> records;
  for (const clang::FunctionDecl* function : functions) {
    collector.TraverseStmt(function->getBody());
    if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(function))
      records.insert(method->getParent());
  }
  for (const clang::CXXRecordDecl* record : records)
    if (record->hasDefinition()) collectHandedOut(*record->getDefinition(), handedOut_);
}

std::vector<const clang::FieldDecl*>
FieldMemory::handedOutFields(const clang::CXXRecordDecl& record) const {
  std::vector<const clang::FieldDecl*> fields;
  record.forallBases([&](const clang::CXXRecordDecl* base) {
    for (const clang::FieldDecl* field : base->fields())
      if (handedOut_.contains(field)) fields.push_back(field);
    return true;
  });
  for (const clang::FieldDecl* field : record.fields())
    if (handedOut_.contains(field)) fields.push_back(field);
  return fields;
}

std::vector<const clang::FieldDecl*>
FieldMemory::pinnedFields(const clang::CXXRecordDecl& record) const {
  std::vector<const clang::FieldDecl*> fields;
  for (const clang::FieldDecl* field : record.fields())
    if (pinned(*field)) fields.push_back(field);
  return fields;
}

const clang::FieldDecl* FieldMemory::fieldPointedInto(const clang::Expr* pointer) const {
  if (!pointer) return nullptr;
  pointer = pointer->IgnoreParenImpCasts();
  if (const auto* arithmetic = llvm::dyn_cast<clang::BinaryOperator>(pointer);
      arithmetic && arithmetic->isAdditiveOp())
    return fieldPointedInto(arithmetic->getLHS()->getType()->isPointerType()
                                ? arithmetic->getLHS()
                                : arithmetic->getRHS());
  return llvm::dyn_cast_or_null<clang::FieldDecl>(storageOf(pointer));
}

bool FieldMemory::pointsIntoPinnedField(const clang::Expr* pointer) const {
  const clang::FieldDecl* field = fieldPointedInto(pointer);
  return field && pinned(*field);
}

bool FieldMemory::pointsIntoOwnAllocation(const clang::Expr* pointer) const {
  const clang::FieldDecl* field = fieldPointedInto(pointer);
  return field && field->getAccess() != clang::AS_public && kinds_.contains(field) &&
         !handedOut_.contains(field);
}

bool FieldMemory::pinned(const clang::FieldDecl& field) const {
  auto found = kinds_.find(&field);
  return found != kinds_.end() && found->second == MemoryKind::Pinned;
}

} // namespace streamrace::analyzer
