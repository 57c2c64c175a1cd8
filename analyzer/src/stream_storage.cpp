// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "stream_storage.h"

#include "handle_types.h"

#include "storage_keys.h"

#include "streamrace/api_model/api_model.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

#include <algorithm>
#include <set>

namespace streamrace::analyzer {
namespace {

// How many getters deep a stream expression is followed (`pool.current().get()`).
constexpr unsigned kMaxGetterDepth = 3;

const clang::ValueDecl* storageThroughGetters(const clang::Expr* expr, unsigned depth) {
  if (!expr) return nullptr;
  expr = expr->IgnoreParenImpCasts();
  if (const auto* address = llvm::dyn_cast<clang::UnaryOperator>(expr))
    return address->getOpcode() == clang::UO_AddrOf
               ? storageThroughGetters(address->getSubExpr(), depth)
               : nullptr;
  if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(expr))
    return storageThroughGetters(cast->getSubExpr(), depth);
  if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(expr))
    return llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
  if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr)) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(reference->getDecl());
    return var && var->hasGlobalStorage() && !var->isStaticLocal() ? var : nullptr;
  }
  if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(expr))
    return storageThroughGetters(subscript->getBase(), depth);
  if (const auto* operatorCall = llvm::dyn_cast<clang::CXXOperatorCallExpr>(expr))
    return operatorCall->getOperator() == clang::OO_Subscript && operatorCall->getNumArgs() == 2
               ? storageThroughGetters(operatorCall->getArg(0), depth)
               : nullptr;
  if (const auto* memberCall = llvm::dyn_cast<clang::CXXMemberCallExpr>(expr)) {
    const clang::CXXMethodDecl* method = memberCall->getMethodDecl();
    if (!method || depth >= kMaxGetterDepth) return nullptr;
    const clang::Expr* returned = returnedBy(*method);
    return returned ? storageThroughGetters(returned, depth + 1) : nullptr;
  }
  return nullptr;
}

} // namespace

const clang::ValueDecl* storageOf(const clang::Expr* expr) {
  return storageThroughGetters(expr, 0);
}

namespace {

using Filling = StreamStorage::Filling;

const clang::ValueDecl* canonicalStorageOf(const clang::Expr* expr) {
  const clang::ValueDecl* storage = storageOf(expr);
  return storage ? llvm::cast<clang::ValueDecl>(storage->getCanonicalDecl()) : nullptr;
}

// The local variable `expr` reads, through `std::move` and copies.
const clang::VarDecl* localRead(const clang::Expr* expr) {
  if (!expr) return nullptr;
  expr = expr->IgnoreParenImpCasts();
  if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(expr))
    return construct->getNumArgs() == 1 ? localRead(construct->getArg(0)) : nullptr;
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(expr)) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    return callee && callee->isInStdNamespace() && callee->getDeclName().isIdentifier() &&
                   callee->getName() == "move" && call->getNumArgs() == 1
               ? localRead(call->getArg(0))
               : nullptr;
  }
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr);
  const auto* var = reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
  return var && var->isLocalVarDecl() ? var : nullptr;
}

// Member functions that only read a container of streams or hand out places in it; any other
// non-const member function may store a stream the analysis does not see.
bool leavesStreamsAsTheyAre(const clang::CXXMethodDecl& method) {
  if (method.isConst() || llvm::isa<clang::CXXConversionDecl>(method) ||
      llvm::isa<clang::CXXDestructorDecl>(method))
    return true;
  if (method.getOverloadedOperator() == clang::OO_Subscript) return true;
  if (!method.getDeclName().isIdentifier()) return false;
  static const std::set<llvm::StringRef> kReadingOrShrinking = {
      "at",    "back",  "begin",    "cbegin", "cend", "clear",   "data", "empty", "end",
      "erase", "front", "pop_back", "rbegin", "rend", "reserve", "size", "get"};
  return kReadingOrShrinking.contains(method.getName());
}

class CreationCollector : public clang::RecursiveASTVisitor<CreationCollector> {
public:
  CreationCollector(const UserModel* userModel, const KernelSummaries& kernels,
                    clang::ASTContext& context, std::map<const clang::ValueDecl*, Filling>& found)
      : userModel_(userModel), kernels_(kernels), context_(context), found_(found) {}

  void collect(const clang::FunctionDecl& function) {
    createdLocals_.clear();
    if (const auto* constructor = llvm::dyn_cast<clang::CXXConstructorDecl>(&function))
      for (const clang::CXXCtorInitializer* initializer : constructor->inits())
        if (initializer->isMemberInitializer() && initializer->isWritten() &&
            !isEmptyValue(initializer->getInit()))
          storesOtherwise(initializer->getMember());
    TraverseStmt(function.getBody());
  }

  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (!callee || !callee->getDeclName().isIdentifier() ||
        !callee->getName().contains("StreamCreate"))
      return true;
    std::optional<CallEffect> effect = classifyCall(*call, userModel_, kernels_, context_);
    if (!effect || effect->kind != CallEffectKind::StreamCreate || !effect->outPointer) return true;
    const std::optional<int64_t> flags = constantValue(effect->flags, context_);
    const bool nonBlocking = flags && (*flags & api_model::kStreamNonBlockingFlag);
    const clang::Expr* outPointer = effect->outPointer->IgnoreParenImpCasts();
    creationOutPointers_.insert(outPointer);
    if (const clang::ValueDecl* storage = canonicalStorageOf(outPointer)) {
      fillWithCreated(storage, nonBlocking);
    } else if (const auto* address = llvm::dyn_cast<clang::UnaryOperator>(outPointer);
               address && address->getOpcode() == clang::UO_AddrOf) {
      if (const clang::VarDecl* local = localRead(address->getSubExpr())) {
        auto [slot, inserted] = createdLocals_.try_emplace(local, nonBlocking);
        if (!inserted) slot->second = slot->second && nonBlocking;
      }
    }
    return true;
  }

  // `&storage` anywhere but as a creation's out-pointer may be written through.
  bool VisitUnaryOperator(clang::UnaryOperator* address) {
    if (address->getOpcode() == clang::UO_AddrOf && !creationOutPointers_.contains(address))
      if (const clang::ValueDecl* storage = canonicalStorageOf(address->getSubExpr()))
        storesOtherwise(storage);
    return true;
  }

  bool VisitBinaryOperator(clang::BinaryOperator* assignment) {
    if (assignment->getOpcode() == clang::BO_Assign)
      stores(assignment->getLHS(), assignment->getRHS());
    return true;
  }

  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* call) {
    if (call->getOperator() == clang::OO_Equal && call->getNumArgs() == 2)
      stores(call->getArg(0), call->getArg(1));
    return true;
  }

  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr* call) {
    const clang::CXXMethodDecl* method = call->getMethodDecl();
    const clang::ValueDecl* storage = canonicalStorageOf(call->getImplicitObjectArgument());
    if (!method || !storage || leavesStreamsAsTheyAre(*method)) return true;
    const bool appends = method->getDeclName().isIdentifier() &&
                         (method->getName() == "push_back" || method->getName() == "emplace_back");
    if (appends && call->getNumArgs() == 1) {
      stores(call->getImplicitObjectArgument(), call->getArg(0));
      return true;
    }
    storesOtherwise(storage);
    return true;
  }

  // A stream handed out (a getter) may come back as the stream a caller passes.
  bool VisitReturnStmt(clang::ReturnStmt* ret) {
    if (const clang::ValueDecl* storage = canonicalStorageOf(ret->getRetValue()))
      storesOtherwise(storage);
    return true;
  }

  // A non-const reference bound to the storage may write it.
  bool VisitVarDecl(clang::VarDecl* var) {
    const clang::QualType type = var->getType();
    if (type->isReferenceType() && !type.getNonReferenceType().isConstQualified())
      if (const clang::ValueDecl* storage = canonicalStorageOf(var->getInit()))
        storesOtherwise(storage);
    return true;
  }

private:
  void stores(const clang::Expr* target, const clang::Expr* value) {
    const clang::VarDecl* local = localRead(value);
    auto created = local ? createdLocals_.find(local) : createdLocals_.end();
    if (const clang::ValueDecl* storage = canonicalStorageOf(target)) {
      if (created != createdLocals_.end())
        fillWithCreated(storage, created->second);
      else if (!isEmptyValue(value))
        storesOtherwise(storage);
      return;
    }
    // A local the creation filled, given another value, no longer holds that stream.
    if (const clang::VarDecl* overwritten = localRead(target);
        overwritten && (!local || local != overwritten))
      createdLocals_.erase(overwritten);
  }

  bool isEmptyValue(const clang::Expr* value) const {
    if (!value) return true;
    value = value->IgnoreParenImpCasts();
    if (llvm::isa<clang::CXXDefaultInitExpr, clang::ImplicitValueInitExpr>(value)) return true;
    if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(value))
      return construct->getNumArgs() == 0;
    return value->isNullPointerConstant(context_, clang::Expr::NPC_ValueDependentIsNotNull) !=
           clang::Expr::NPCK_NotNull;
  }

  void fillWithCreated(const clang::ValueDecl* storage, bool nonBlocking) {
    Filling& filling = found_[storage];
    filling.created = true;
    filling.nonBlocking = filling.nonBlocking && nonBlocking;
  }

  void storesOtherwise(const clang::ValueDecl* storage) {
    found_[llvm::cast<clang::ValueDecl>(storage->getCanonicalDecl())].otherwise = true;
  }

  const UserModel* userModel_;
  const KernelSummaries& kernels_;
  clang::ASTContext& context_;
  std::map<const clang::ValueDecl*, Filling>& found_;
  std::map<const clang::VarDecl*, bool> createdLocals_; // local -> its creations non-blocking
  std::set<const clang::Expr*> creationOutPointers_;
};

} // namespace

StreamStorage::StreamStorage(const std::vector<const clang::FunctionDecl*>& functions,
                             const UserModel* userModel, const KernelSummaries& kernels,
                             clang::ASTContext& context) {
  CreationCollector collector(userModel, kernels, context, filled_);
  for (const clang::FunctionDecl* function : functions)
    collector.collect(*function);
}

const StreamStorage::Filling* StreamStorage::fillingOf(const clang::Expr* stream) const {
  if (filled_.empty()) return nullptr;
  const clang::ValueDecl* storage = canonicalStorageOf(stream);
  auto found = storage ? filled_.find(storage) : filled_.end();
  return found != filled_.end() ? &found->second : nullptr;
}

bool StreamStorage::createdNonBlocking(const clang::Expr* stream) const {
  const Filling* filling = fillingOf(stream);
  return filling && filling->created && filling->nonBlocking;
}

bool StreamStorage::keepsNonBlockingStreams() const {
  return std::any_of(filled_.begin(), filled_.end(), [](const auto& storage) {
    return storage.second.created && storage.second.nonBlocking;
  });
}

bool StreamStorage::holdsOnlyCreatedStreams(const clang::Expr* stream) const {
  const Filling* filling = fillingOf(stream);
  if (!filling || !filling->created || filling->otherwise) return false;
  // A class that also keeps a stream it was given (`compute_(compute)`) may order its own
  // streams after that one, which is the caller's under another name: only a class whose every
  // stream is its own is known to order nothing after the caller's stream but through it.
  const auto* field = llvm::dyn_cast<clang::FieldDecl>(canonicalStorageOf(stream));
  return !field || std::all_of(field->getParent()->field_begin(), field->getParent()->field_end(),
                               [&](const clang::FieldDecl* other) {
                                 if (!holdsStreams(other->getType())) return true;
                                 auto found = filled_.find(other);
                                 return found != filled_.end() && found->second.created &&
                                        !found->second.otherwise;
                               });
}

} // namespace streamrace::analyzer
