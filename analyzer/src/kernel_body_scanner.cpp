// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Each pointer a kernel is given, followed to its uses: read, written, both, or atomic only.
#include "kernel_body_scanner.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecordLayout.h"

#include <algorithm>

namespace streamrace::analyzer::kernel_scan {
namespace {

ParamAccess merge(ParamAccess a, ParamAccess b) {
  if (a == ParamAccess::None) return b;
  if (b == ParamAccess::None || a == b) return a;
  return ParamAccess::ReadWrite;
}

// CUDA's atomic read-modify-write functions (and their _block/_system scopes).
bool isAtomicFunction(const clang::FunctionDecl* function) {
  if (!function || !function->getDeclName().isIdentifier()) return false;
  const llvm::StringRef name = function->getName();
  for (llvm::StringRef operation :
       {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc", "atomicDec",
        "atomicCAS", "atomicAnd", "atomicOr", "atomicXor"})
    if (name == operation || name == (operation + "_block").str() ||
        name == (operation + "_system").str())
      return true;
  return false;
}

// Whether a value of `type` holds a pointer anywhere (a member, an element, a base).
bool holdsPointer(clang::QualType type) {
  type = type.getCanonicalType();
  if (type->isPointerType() || type->isReferenceType() || type->isMemberPointerType()) return true;
  if (const clang::ArrayType* array = type->getAsArrayTypeUnsafe())
    return holdsPointer(array->getElementType());
  const clang::RecordDecl* record = type->getAsRecordDecl();
  if (!record || !record->getDefinition()) return false;
  record = record->getDefinition();
  if (const auto* cxx = llvm::dyn_cast<clang::CXXRecordDecl>(record)) {
    if (cxx->isPolymorphic()) return true;
    for (const clang::CXXBaseSpecifier& base : cxx->bases())
      if (holdsPointer(base.getType())) return true;
  }
  for (const clang::FieldDecl* field : record->fields())
    if (holdsPointer(field->getType())) return true;
  return false;
}

// Two row extents over the same rows of the same grid, whatever neighbour rows each reads.
bool sameGrid(const ParamExtent& a, const ParamExtent& b) {
  return a.firstRowParam == b.firstRowParam && a.endRowParam == b.endRowParam &&
         a.widthParam == b.widthParam && a.elementBytes == b.elementBytes;
}

} // namespace

void PointerUse::add(ParamAccess use, const std::optional<ParamExtent>& bound,
                     std::optional<unsigned> underFlag) {
  access = merge(access, use);
  if (use == ParamAccess::None) return;
  if (!underFlag || (guard && *guard != *underFlag)) unguarded = true;
  guard = underFlag;
  if (bound && extent && bound->kind == ParamExtent::Kind::Bytes &&
      extent->kind == ParamExtent::Kind::Bytes) {
    extent->elementBytes = std::max(extent->elementBytes, bound->elementBytes);
    return;
  }
  if (bound && extent && bound->kind == ParamExtent::Kind::Rows &&
      extent->kind == ParamExtent::Kind::Rows && sameGrid(*bound, *extent)) {
    extent->rowsBefore = std::max(extent->rowsBefore, bound->rowsBefore);
    extent->rowsAfter = std::max(extent->rowsAfter, bound->rowsAfter);
    return;
  }
  if (!bound || (extent && *extent != *bound)) unbounded = true;
  extent = bound;
}

KernelBodyScanner::KernelBodyScanner(const clang::FunctionDecl& kernel,
                                     const clang::ASTContext& context, CalleeSummaries& callees)
    : kernel_(kernel), context_(context), callees_(callees), parents_(kernel.getBody()) {
  const unsigned count = kernel.getNumParams();
  params_.resize(count);
  fields_.resize(count);
  opaque_.assign(count, false);
  for (unsigned i = 0; i < count; ++i) {
    const clang::ParmVarDecl* param = kernel.getParamDecl(i);
    const clang::QualType type = param->getType();
    if (type->isPointerType()) {
      origin_[param] = Origin{i, std::nullopt};
    } else if (const clang::RecordDecl* record = type->getAsRecordDecl();
               record && holdsPointer(type)) {
      std::vector<const clang::FieldDecl*> path;
      if (!collectPointerFields(*record, 0, "", path, fields_[i])) opaque_[i] = true;
      structParams_[param] = i;
    }
  }
}

bool KernelBodyScanner::VisitVarDecl(clang::VarDecl* var) {
  if (!var->getType()->isPointerType() || !var->getInit()) return true;
  if (auto origin = derivedOrigin(var->getInit())) origin_[var] = *origin;
  return true;
}

bool KernelBodyScanner::VisitDeclRefExpr(clang::DeclRefExpr* reference) {
  if (auto found = structParams_.find(reference->getDecl()); found != structParams_.end()) {
    useOfStruct(*reference, found->second);
    return true;
  }
  auto found = origin_.find(reference->getDecl());
  if (found == origin_.end()) return true;
  const Origin& origin = found->second;
  const ParamAccess use = useOf(reference);
  std::optional<ParamExtent> extent;
  std::optional<unsigned> guard;
  if (use != ParamAccess::None && reference->getDecl() == kernel_.getParamDecl(origin.param)) {
    extent = extentOf(*reference, origin);
    guard = guardingFlag(*reference);
  }
  useAt(origin).add(use, extent, guard);
  return true;
}

std::vector<std::optional<unsigned>> KernelBodyScanner::takeGuards() const {
  std::vector<std::optional<unsigned>> guards;
  guards.reserve(params_.size());
  for (const PointerUse& use : params_)
    guards.push_back(use.finalGuard());
  return guards;
}

std::vector<ParamAccess> KernelBodyScanner::takeAccess() const {
  std::vector<ParamAccess> access;
  for (unsigned i = 0; i < params_.size(); ++i) {
    ParamAccess merged = params_[i].access;
    if (opaque_[i])
      merged = ParamAccess::ReadWrite;
    else
      for (const PointerField& field : fields_[i])
        merged = merge(merged, field.use.access);
    access.push_back(merged);
  }
  return access;
}

std::vector<std::optional<ParamExtent>> KernelBodyScanner::takeExtents() const {
  std::vector<std::optional<ParamExtent>> extents;
  extents.reserve(params_.size());
  for (const PointerUse& use : params_)
    extents.push_back(use.finalExtent());
  return extents;
}

std::vector<std::vector<FieldSummary>> KernelBodyScanner::takeFields() const {
  std::vector<std::vector<FieldSummary>> summaries(fields_.size());
  for (unsigned i = 0; i < fields_.size(); ++i) {
    if (opaque_[i]) continue;
    for (const PointerField& field : fields_[i])
      summaries[i].push_back(
          FieldSummary{field.name, field.offset, field.use.access, field.use.finalExtent()});
  }
  return summaries;
}

bool KernelBodyScanner::collectPointerFields(const clang::RecordDecl& declared, std::int64_t offset,
                                             const std::string& prefix,
                                             std::vector<const clang::FieldDecl*>& path,
                                             std::vector<PointerField>& out) const {
  const clang::RecordDecl* record = declared.getDefinition();
  if (!record || record->isUnion() || record->isInvalidDecl()) return false;
  if (const auto* cxx = llvm::dyn_cast<clang::CXXRecordDecl>(record);
      cxx && (cxx->getNumBases() > 0 || cxx->isPolymorphic()))
    return false;
  const clang::ASTRecordLayout& layout = context_.getASTRecordLayout(record);
  for (const clang::FieldDecl* field : record->fields()) {
    const clang::QualType type = field->getType().getCanonicalType();
    if (!holdsPointer(type)) continue;
    const std::int64_t at =
        offset + static_cast<std::int64_t>(layout.getFieldOffset(field->getFieldIndex()) /
                                           context_.getCharWidth());
    const std::string name = prefix + field->getNameAsString();
    path.push_back(field);
    bool described = true;
    if (type->isPointerType())
      out.push_back(PointerField{path, name, at, {}});
    else if (const clang::RecordDecl* nested = type->getAsRecordDecl())
      described = collectPointerFields(*nested, at, name + ".", path, out);
    else
      described = false;
    path.pop_back();
    if (!described) return false;
  }
  return true;
}

PointerUse& KernelBodyScanner::useAt(const Origin& origin) {
  return origin.field ? fields_[origin.param][*origin.field].use : params_[origin.param];
}

std::optional<std::pair<unsigned, std::vector<const clang::FieldDecl*>>>
KernelBodyScanner::memberChain(const clang::Expr* expr) const {
  std::vector<const clang::FieldDecl*> path;
  expr = expr->IgnoreParens();
  while (const auto* member = llvm::dyn_cast<clang::MemberExpr>(expr)) {
    const auto* field = llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
    if (member->isArrow() || !field) return std::nullopt;
    path.insert(path.begin(), field);
    expr = member->getBase()->IgnoreParens();
  }
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr);
  if (!reference) return std::nullopt;
  const auto found = structParams_.find(reference->getDecl());
  if (found == structParams_.end()) return std::nullopt;
  return std::make_pair(found->second, std::move(path));
}

std::optional<std::size_t>
KernelBodyScanner::pointerFieldIndex(unsigned param,
                                     const std::vector<const clang::FieldDecl*>& path) const {
  for (std::size_t i = 0; i < fields_[param].size(); ++i)
    if (fields_[param][i].path == path) return i;
  return std::nullopt;
}

void KernelBodyScanner::useOfStruct(const clang::DeclRefExpr& reference, unsigned param) {
  if (opaque_[param]) return;
  const clang::Expr* current = &reference;
  const clang::Stmt* parent = parentOf(current);
  while (parent) {
    if (llvm::isa<clang::ParenExpr>(parent)) {
      current = llvm::cast<clang::Expr>(parent);
    } else if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(parent);
               member && !member->isArrow() && member->getBase()->IgnoreParens() == current) {
      current = member;
    } else {
      break;
    }
    parent = parentOf(current);
  }
  if (!holdsPointer(current->getType())) return;
  const auto chain = memberChain(current);
  const std::optional<std::size_t> field =
      chain ? pointerFieldIndex(param, chain->second) : std::nullopt;
  if (!field) {
    opaque_[param] = true;
    return;
  }
  const Origin origin{param, field};
  const ParamAccess use = useOf(current);
  useAt(origin).add(use, use == ParamAccess::None ? std::nullopt : extentOf(*current, origin));
}

std::optional<Origin> KernelBodyScanner::derivedOrigin(const clang::Expr* expr) {
  expr = expr->IgnoreParenCasts();
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expr))
    if (binary->isAdditiveOp())
      return derivedOrigin(binary->getLHS()->getType()->isPointerType() ? binary->getLHS()
                                                                        : binary->getRHS());
  if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr))
    if (auto found = origin_.find(reference->getDecl()); found != origin_.end())
      return found->second;
  if (const auto chain = memberChain(expr))
    if (const auto field = pointerFieldIndex(chain->first, chain->second))
      return Origin{chain->first, field};
  return std::nullopt;
}

ParamAccess KernelBodyScanner::useOf(const clang::Expr* pointer) {
  const clang::Stmt* current = pointer;
  const clang::Stmt* parent = parentOf(current);
  while (parent) {
    if (llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr, clang::CStyleCastExpr,
                  clang::CXXNamedCastExpr>(parent)) {
      current = parent;
      parent = parentOf(current);
      continue;
    }
    if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(parent)) {
      if (binary->isAdditiveOp()) {
        current = parent;
        parent = parentOf(current);
        continue;
      }
      if (binary->isComparisonOp()) return ParamAccess::None;
      if (binary->getOpcode() == clang::BO_Assign && binary->getLHS() != current)
        return llvm::isa<clang::DeclRefExpr>(binary->getLHS()->IgnoreParenCasts())
                   ? ParamAccess::None // re-pointing a local: VisitVarDecl-style aliasing
                   : ParamAccess::ReadWrite;
    }
    if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(parent))
      return subscript->getBase() == current ? accessOfElement(subscript) : ParamAccess::None;
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(parent))
      if (unary->getOpcode() == clang::UO_Deref) return accessOfElement(unary);
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(parent))
      if (member->isArrow()) return accessOfElement(member);
    if (isAtomicTarget(current, parent)) return ParamAccess::Atomic;
    if (llvm::isa<clang::DeclStmt>(parent) || isNullTest(current, parent)) return ParamAccess::None;
    if (const CalleeParam* callee = calleeParam(current, parent)) return callee->access;
    return ParamAccess::ReadWrite;
  }
  return ParamAccess::None;
}

bool KernelBodyScanner::isNullTest(const clang::Stmt* pointer, const clang::Stmt* parent) {
  if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(parent))
    return branch->getCond() == pointer;
  if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(parent))
    return loop->getCond() == pointer;
  if (const auto* choice = llvm::dyn_cast<clang::ConditionalOperator>(parent))
    return choice->getCond() == pointer;
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(parent))
    return binary->isLogicalOp();
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(parent))
    return unary->getOpcode() == clang::UO_LNot;
  return false;
}

ParamAccess KernelBodyScanner::accessOfElement(const clang::Expr* element) {
  const clang::Stmt* current = element;
  const clang::Stmt* parent = parentOf(current);
  while (parent && (llvm::isa<clang::ParenExpr, clang::MemberExpr>(parent) ||
                    (llvm::isa<clang::ArraySubscriptExpr>(parent) &&
                     llvm::cast<clang::ArraySubscriptExpr>(parent)->getBase() == current))) {
    current = parent;
    parent = parentOf(current);
  }
  if (!parent) return ParamAccess::Read;
  if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(parent))
    return cast->getCastKind() == clang::CK_LValueToRValue ? ParamAccess::Read
                                                           : ParamAccess::ReadWrite;
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(parent)) {
    if (binary->getLHS() != current) return ParamAccess::Read;
    if (binary->getOpcode() == clang::BO_Assign) return ParamAccess::Write;
    if (binary->isCompoundAssignmentOp()) return ParamAccess::ReadWrite;
    return ParamAccess::Read;
  }
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(parent)) {
    if (unary->getOpcode() == clang::UO_AddrOf) {
      // `atomicAdd(&bins[k], 1)`: the element's address goes straight into an atomic.
      const clang::Stmt* address = unary;
      const clang::Stmt* user = parentOf(address);
      while (user && llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr>(user)) {
        address = user;
        user = parentOf(address);
      }
      return isAtomicTarget(address, user) ? ParamAccess::Atomic : ParamAccess::ReadWrite;
    }
    return unary->isIncrementDecrementOp() ? ParamAccess::ReadWrite : ParamAccess::Read;
  }
  return ParamAccess::ReadWrite;
}

bool KernelBodyScanner::isAtomicTarget(const clang::Stmt* address, const clang::Stmt* user) {
  const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(user);
  return call && call->getNumArgs() > 0 && call->getArg(0) == address &&
         isAtomicFunction(call->getDirectCallee());
}

const clang::Stmt* KernelBodyScanner::parentOf(const clang::Stmt* stmt) {
  return parents_.getParent(const_cast<clang::Stmt*>(stmt));
}

const std::vector<CalleeParam>* CalleeSummaries::find(const clang::FunctionDecl& function) {
  const clang::FunctionDecl* definition = function.getDefinition();
  if (!definition || !definition->getBody() || definition->isDependentContext()) return nullptr;
  if (auto known = summaries_.find(definition); known != summaries_.end())
    return known->second ? &*known->second : nullptr;
  summaries_[definition] = std::nullopt; // in progress
  KernelBodyScanner scanner(*definition, context_, *this);
  scanner.TraverseStmt(definition->getBody());
  const std::vector<ParamAccess> access = scanner.takeAccess();
  const std::vector<std::optional<ParamExtent>> extents = scanner.takeExtents();
  std::vector<CalleeParam> params;
  params.reserve(access.size());
  for (std::size_t i = 0; i < access.size(); ++i)
    params.push_back(CalleeParam{access[i], extents[i]});
  return &*(summaries_[definition] = std::move(params));
}

} // namespace streamrace::analyzer::kernel_scan
