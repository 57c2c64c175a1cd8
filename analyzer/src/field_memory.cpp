// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "field_memory.h"

#include "stream_storage.h"

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

} // namespace

FieldMemory::FieldMemory(const std::vector<const clang::FunctionDecl*>& functions,
                         const UserModel* userModel, const KernelSummaries& kernels,
                         clang::ASTContext& context) {
  AllocationCollector collector(userModel, kernels, context, kinds_);
  for (const clang::FunctionDecl* function : functions)
    collector.TraverseStmt(function->getBody());
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
  return field && field->getAccess() != clang::AS_public && kinds_.contains(field);
}

bool FieldMemory::pinned(const clang::FieldDecl& field) const {
  auto found = kinds_.find(&field);
  return found != kinds_.end() && found->second == MemoryKind::Pinned;
}

} // namespace streamrace::analyzer
