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
  std::vector<const clang::FieldDecl*> pinned;
  for (const clang::FieldDecl* field : record.fields())
    if (auto found = kinds_.find(field);
        found != kinds_.end() && found->second == MemoryKind::Pinned)
      pinned.push_back(field);
  return pinned;
}

} // namespace streamrace::analyzer
