// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/analyzer/kernel_summary.h"

#include "streamrace/api_model/kernel_access.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <memory>
#include <set>

namespace streamrace::analyzer {
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

ParamExtent countExtent(unsigned param, std::optional<std::int64_t> offset, std::int64_t bytes) {
  ParamExtent extent;
  extent.countParam = param;
  extent.countOffset = offset;
  extent.countBytes = bytes;
  return extent;
}

// Where a kernel's accesses come from: a pointer parameter, or (`field` set) one pointer member
// of a struct parameter passed by value.
struct Origin {
  unsigned param = 0;
  std::optional<std::size_t> field;
};

// Two row extents over the same rows of the same grid, whatever neighbour rows each reads.
bool sameGrid(const ParamExtent& a, const ParamExtent& b) {
  return a.firstRowParam == b.firstRowParam && a.endRowParam == b.endRowParam &&
         a.widthParam == b.widthParam && a.elementBytes == b.elementBytes;
}

// What the kernel does through one pointer: its access, and its extent while every access is
// bounded by the same count.
struct PointerUse {
  ParamAccess access = ParamAccess::None;
  std::optional<ParamExtent> extent;
  bool unbounded = false;
  std::optional<unsigned> guard;
  bool unguarded = false;

  void add(ParamAccess use, const std::optional<ParamExtent>& bound,
           std::optional<unsigned> underFlag = std::nullopt) {
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
  std::optional<ParamExtent> finalExtent() const { return unbounded ? std::nullopt : extent; }
  std::optional<unsigned> finalGuard() const { return unguarded ? std::nullopt : guard; }
};

// What a device function does through one of its parameters.
struct CalleeParam {
  ParamAccess access = ParamAccess::ReadWrite;
  std::optional<ParamExtent> extent;
};

// The device functions kernels pass pointers to, each summarized once, as a kernel is.
class CalleeSummaries {
public:
  explicit CalleeSummaries(const clang::ASTContext& context) : context_(context) {}
  // Per parameter; null for a function without a body, or one still being summarized (a
  // recursive call, whose use stays unknown).
  const std::vector<CalleeParam>* find(const clang::FunctionDecl& function);

private:
  const clang::ASTContext& context_;
  std::map<const clang::FunctionDecl*, std::optional<std::vector<CalleeParam>>> summaries_;
};

// A pointer member of a struct parameter: the chain of fields that names it, from the parameter.
struct PointerField {
  std::vector<const clang::FieldDecl*> path;
  std::string name;
  std::int64_t offset = 0;
  PointerUse use;
};

// How the memory a pointer-valued expression points to is used by its surroundings.
class KernelBodyScanner : public clang::RecursiveASTVisitor<KernelBodyScanner> {
public:
  KernelBodyScanner(const clang::FunctionDecl& kernel, const clang::ASTContext& context,
                    CalleeSummaries& callees)
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

  // Pointers derived from a parameter or a member (`float* row = x + offset;`) stand for it.
  bool VisitVarDecl(clang::VarDecl* var) {
    if (!var->getType()->isPointerType() || !var->getInit()) return true;
    if (auto origin = derivedOrigin(var->getInit())) origin_[var] = *origin;
    return true;
  }

  bool VisitDeclRefExpr(clang::DeclRefExpr* reference) {
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

  std::vector<std::optional<unsigned>> takeGuards() const {
    std::vector<std::optional<unsigned>> guards;
    for (const PointerUse& use : params_)
      guards.push_back(use.finalGuard());
    return guards;
  }

  // Per parameter: its access; a struct used only through its members has their access merged,
  // one used whole is read and written.
  std::vector<ParamAccess> takeAccess() const {
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

  std::vector<std::optional<ParamExtent>> takeExtents() const {
    std::vector<std::optional<ParamExtent>> extents;
    for (const PointerUse& use : params_)
      extents.push_back(use.finalExtent());
    return extents;
  }

  std::vector<std::vector<FieldSummary>> takeFields() const {
    std::vector<std::vector<FieldSummary>> summaries(fields_.size());
    for (unsigned i = 0; i < fields_.size(); ++i) {
      if (opaque_[i]) continue;
      for (const PointerField& field : fields_[i])
        summaries[i].push_back(
            FieldSummary{field.name, field.offset, field.use.access, field.use.finalExtent()});
    }
    return summaries;
  }

private:
  // The pointer members of `record` (at `offset` bytes into the parameter), nested structs
  // included; false when a pointer sits where no member path names it alone (an array, a union,
  // a base class, a virtual table).
  bool collectPointerFields(const clang::RecordDecl& declared, std::int64_t offset,
                            const std::string& prefix, std::vector<const clang::FieldDecl*>& path,
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

  PointerUse& useAt(const Origin& origin) {
    return origin.field ? fields_[origin.param][*origin.field].use : params_[origin.param];
  }

  // `param.a.b`: the struct parameter and the members named, when `expr` is such a chain.
  std::optional<std::pair<unsigned, std::vector<const clang::FieldDecl*>>>
  memberChain(const clang::Expr* expr) const {
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
  pointerFieldIndex(unsigned param, const std::vector<const clang::FieldDecl*>& path) const {
    for (std::size_t i = 0; i < fields_[param].size(); ++i)
      if (fields_[param][i].path == path) return i;
    return std::nullopt;
  }

  // A use of struct parameter `param`: through a pointer member, that member's access; through
  // a member without pointers, nothing; the struct (or a part holding pointers) used whole makes
  // the parameter opaque.
  void useOfStruct(const clang::DeclRefExpr& reference, unsigned param) {
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

  std::optional<Origin> derivedOrigin(const clang::Expr* expr) {
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
  // The pointer value flows up through casts and pointer arithmetic; the first dereference
  // decides read or write; anything else (a call, an escape into memory) counts as both.
  ParamAccess useOf(const clang::Expr* pointer) {
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
      if (llvm::isa<clang::DeclStmt>(parent) || isNullTest(current, parent))
        return ParamAccess::None;
      if (const CalleeParam* callee = calleeParam(current, parent)) return callee->access;
      return ParamAccess::ReadWrite;
    }
    return ParamAccess::None;
  }

  // `if (p)`, `p && ...`, `!p`, `p ? a : b`: the pointer is tested, its memory untouched.
  static bool isNullTest(const clang::Stmt* pointer, const clang::Stmt* parent) {
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

  // An lvalue naming pointed-to memory: written when assigned, read when loaded.
  ParamAccess accessOfElement(const clang::Expr* element) {
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

  // Whether `address` is the target (first argument) of an atomic call `user`.
  static bool isAtomicTarget(const clang::Stmt* address, const clang::Stmt* user) {
    const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(user);
    return call && call->getNumArgs() > 0 && call->getArg(0) == address &&
           isAtomicFunction(call->getDirectCallee());
  }

  const clang::Stmt* parentOf(const clang::Stmt* stmt) {
    return parents_.getParent(const_cast<clang::Stmt*>(stmt));
  }

  // How far the kernel reaches through `pointer` at this use: `p[i]` under a guard `i < n` (n
  // an integer parameter or, for a pointer member, an integer member of the same struct) n
  // elements; `p[k]` (k a constant), `*p`, `p->m` k + 1 elements; `p[i]` with i the thread's
  // 1-D grid index (`blockIdx.x * blockDim.x + threadIdx.x`, or `threadIdx.x`) one element per
  // thread of the launch; passed to a device function, what that function's use is.
  std::optional<ParamExtent> extentOf(const clang::Expr& pointer, const Origin& origin) {
    const clang::Stmt* current = &pointer;
    const clang::Stmt* parent = parentOf(current);
    while (parent && llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr>(parent)) {
      current = parent;
      parent = parentOf(current);
    }
    if (const auto* subscript = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(parent))
      return subscript->getBase() == current ? elementExtent(*subscript, origin) : std::nullopt;
    if (const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent);
        unary && unary->getOpcode() == clang::UO_Deref)
      return fixedBytes(unary->getType(), 1);
    if (const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(parent);
        member && member->isArrow())
      return fixedBytes(member->getBase()->getType()->getPointeeType(), 1);
    if (const CalleeParam* callee = calleeParam(current, parent);
        callee && callee->extent && callee->extent->kind != ParamExtent::Kind::Count &&
        callee->extent->kind != ParamExtent::Kind::Rows)
      return callee->extent; // a count or rows would name the callee's parameters, not ours
    return std::nullopt;
  }

  std::optional<ParamExtent> fixedBytes(clang::QualType element, std::int64_t elements) const {
    if (element.isNull() || element->isIncompleteType() || element->isDependentType())
      return std::nullopt;
    ParamExtent extent;
    extent.kind = ParamExtent::Kind::Bytes;
    extent.elementBytes = elements * context_.getTypeSizeInChars(element).getQuantity();
    return extent;
  }

  std::optional<ParamExtent> elementExtent(const clang::ArraySubscriptExpr& subscript,
                                           const Origin& origin) {
    const clang::QualType element = subscript.getType();
    if (element->isIncompleteType() || element->isDependentType()) return std::nullopt;
    const clang::Expr* index = subscript.getIdx()->IgnoreParenImpCasts();
    if (clang::Expr::EvalResult constant;
        !index->isValueDependent() && index->EvaluateAsInt(constant, context_)) {
      const llvm::APSInt& value = constant.Val.getInt();
      if (value.isNegative() || value.getActiveBits() > 31) return std::nullopt;
      return fixedBytes(element, value.getExtValue() + 1);
    }
    std::optional<ParamExtent> extent;
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(index);
    const auto* variable =
        reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
    if (variable && variable->getType()->isIntegerType())
      extent = guardOf(subscript, *variable, origin);
    if (!extent && (isGridIndex(index) || (variable && isGridIndexVariable(*variable)))) {
      extent = ParamExtent{};
      extent->kind = ParamExtent::Kind::Threads;
    }
    if (!extent && !origin.field) extent = rowsExtent(subscript, *index);
    if (extent) extent->elementBytes = context_.getTypeSizeInChars(element).getQuantity();
    return extent;
  }

  // `threadIdx.x`, or `blockIdx.x * blockDim.x + threadIdx.x` in any order: below the launch's
  // threads in x.
  bool isGridIndex(const clang::Expr* expr) {
    expr = expr->IgnoreParenCasts();
    if (isBuiltin(expr, "threadIdx")) return true;
    std::optional<unsigned> param;
    std::int64_t start = 0;
    return gridStart(expr, "x", param, start) && !param && start == 0;
  }

  // `variable.x` for CUDA's built-in variable `variable` (a property in clang's headers, a
  // member of a struct in plain declarations).
  static bool isBuiltin(const clang::Expr* expr, llvm::StringRef variable,
                        llvm::StringRef dimension = "x") {
    expr = expr->IgnoreParenCasts();
    if (const auto* pseudo = llvm::dyn_cast<clang::PseudoObjectExpr>(expr))
      expr = pseudo->getSyntacticForm()->IgnoreParenCasts();
    const clang::Expr* base = nullptr;
    const clang::NamedDecl* component = nullptr;
    if (const auto* property = llvm::dyn_cast<clang::MSPropertyRefExpr>(expr)) {
      base = property->getBaseExpr();
      component = property->getPropertyDecl();
    } else if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(expr)) {
      base = member->getBase();
      component = member->getMemberDecl();
    }
    if (!base || !component || !component->getDeclName().isIdentifier() ||
        component->getName() != dimension)
      return false;
    base = base->IgnoreParenCasts();
    if (const auto* opaque = llvm::dyn_cast<clang::OpaqueValueExpr>(base);
        opaque && opaque->getSourceExpr())
      base = opaque->getSourceExpr()->IgnoreParenCasts();
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(base);
    const auto* declared =
        reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
    return declared && declared->getDeclName().isIdentifier() && declared->getName() == variable;
  }

  // `p[row * width + col]` (ParamExtent::Kind::Rows) at this subscript, with `index` its index.
  std::optional<ParamExtent> rowsExtent(const clang::ArraySubscriptExpr& subscript,
                                        const clang::Expr& index) {
    std::vector<std::pair<const clang::Expr*, bool>> terms; // each with its sign: true is minus
    splitSum(&index, false, terms);
    const clang::VarDecl* row = nullptr;
    const clang::VarDecl* column = nullptr;
    std::optional<unsigned> width;
    std::int64_t rowShift = 0, columnShift = 0;
    for (const auto& [term, negated] : terms) {
      if (std::optional<std::int64_t> constant = integerConstant(term)) {
        columnShift += negated ? -*constant : *constant;
      } else if (const auto* product = llvm::dyn_cast<clang::BinaryOperator>(term);
                 product && product->getOpcode() == clang::BO_Mul && !negated && !row) {
        for (auto [rowSide, widthSide] : {std::pair{product->getLHS(), product->getRHS()},
                                          std::pair{product->getRHS(), product->getLHS()}}) {
          width = unchangedIntegerParam(widthSide);
          if (width && (row = shiftedLocal(rowSide, rowShift))) break;
        }
        if (!row) return std::nullopt;
      } else if (const clang::VarDecl* local = localVariable(term); local && !negated && !column) {
        column = local;
      } else {
        return std::nullopt;
      }
    }
    if (!row || !column || !width) return std::nullopt;
    std::optional<unsigned> firstRow;
    std::int64_t rowStart = 0, columnStart = 0;
    if (!gridStart(row->getInit(), "y", firstRow, rowStart) || !firstRow || rowStart != 0)
      return std::nullopt;
    std::optional<unsigned> noParam;
    if (!gridStart(column->getInit(), "x", noParam, columnStart) || noParam) return std::nullopt;
    const std::optional<GridGuard> guard = gridGuard(subscript, *row, *column, *width);
    // The column stays inside its row: from columnStart + shift up to width - k - 1 + shift.
    if (!guard || columnStart + columnShift < 0 || columnShift > guard->columnSlack)
      return std::nullopt;
    ParamExtent extent;
    extent.kind = ParamExtent::Kind::Rows;
    extent.firstRowParam = *firstRow;
    extent.endRowParam = guard->endRowParam;
    extent.widthParam = *width;
    extent.rowsBefore = std::max<std::int64_t>(0, -rowShift);
    extent.rowsAfter = std::max<std::int64_t>(0, rowShift);
    return extent;
  }

  static void splitSum(const clang::Expr* expr, bool negated,
                       std::vector<std::pair<const clang::Expr*, bool>>& terms) {
    expr = expr->IgnoreParenImpCasts();
    if (const auto* sum = llvm::dyn_cast<clang::BinaryOperator>(expr);
        sum && (sum->getOpcode() == clang::BO_Add || sum->getOpcode() == clang::BO_Sub)) {
      splitSum(sum->getLHS(), negated, terms);
      splitSum(sum->getRHS(), sum->getOpcode() == clang::BO_Sub ? !negated : negated, terms);
      return;
    }
    terms.emplace_back(expr, negated);
  }

  std::optional<std::int64_t> integerConstant(const clang::Expr* expr) const {
    clang::Expr::EvalResult constant;
    if (expr->isValueDependent() || !expr->EvaluateAsInt(constant, context_)) return std::nullopt;
    if (constant.Val.getInt().getActiveBits() > 31) return std::nullopt;
    return constant.Val.getInt().getExtValue();
  }

  // A local integer the kernel never changes after its initialization.
  const clang::VarDecl* localVariable(const clang::Expr* expr) {
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
    const auto* variable =
        reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
    if (!variable || llvm::isa<clang::ParmVarDecl>(variable) || !variable->hasLocalStorage() ||
        !variable->getType()->isIntegerType() || !variable->getInit() || isChanged(*variable))
      return nullptr;
    return variable;
  }

  // `local` or `(local ± constant)`, the constant put in `shift`.
  const clang::VarDecl* shiftedLocal(const clang::Expr* expr, std::int64_t& shift) {
    std::vector<std::pair<const clang::Expr*, bool>> terms;
    splitSum(expr, false, terms);
    const clang::VarDecl* local = nullptr;
    shift = 0;
    for (const auto& [term, negated] : terms) {
      if (std::optional<std::int64_t> constant = integerConstant(term))
        shift += negated ? -*constant : *constant;
      else if (const clang::VarDecl* found = localVariable(term); found && !negated && !local)
        local = found;
      else
        return nullptr;
    }
    return local;
  }

  std::optional<unsigned> unchangedIntegerParam(const clang::Expr* expr) {
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
    const auto* param =
        reference ? llvm::dyn_cast<clang::ParmVarDecl>(reference->getDecl()) : nullptr;
    if (!param || !param->getType()->isIntegerType() || isChanged(*param)) return std::nullopt;
    return param->getFunctionScopeIndex();
  }

  // Whether `expr` is the thread's grid index in `dimension` (`blockIdx.d * blockDim.d +
  // threadIdx.d`), plus at most one integer parameter (`param`) and constants (`start`).
  bool gridStart(const clang::Expr* expr, llvm::StringRef dimension, std::optional<unsigned>& param,
                 std::int64_t& start) {
    std::vector<std::pair<const clang::Expr*, bool>> terms;
    splitSum(expr, false, terms);
    bool thread = false, block = false;
    start = 0;
    for (const auto& [term, negated] : terms) {
      if (negated) return false;
      if (std::optional<std::int64_t> constant = integerConstant(term)) {
        start += *constant;
      } else if (isBuiltin(term, "threadIdx", dimension) && !thread) {
        thread = true;
      } else if (const auto* product =
                     llvm::dyn_cast<clang::BinaryOperator>(term->IgnoreParenCasts());
                 product && product->getOpcode() == clang::BO_Mul && !block &&
                 ((isBuiltin(product->getLHS(), "blockIdx", dimension) &&
                   isBuiltin(product->getRHS(), "blockDim", dimension)) ||
                  (isBuiltin(product->getLHS(), "blockDim", dimension) &&
                   isBuiltin(product->getRHS(), "blockIdx", dimension)))) {
        block = true;
      } else if (std::optional<unsigned> found = unchangedIntegerParam(term); found && !param) {
        param = found;
      } else {
        return false;
      }
    }
    return thread && block && start >= 0;
  }

  struct GridGuard {
    unsigned endRowParam = 0;
    std::int64_t columnSlack = 0; // k in `col < width - k`
  };

  // An enclosing `if (row < end && col < width - k)` whose then-branch holds `stmt`.
  std::optional<GridGuard> gridGuard(const clang::Stmt& stmt, const clang::VarDecl& row,
                                     const clang::VarDecl& column, unsigned width) {
    const clang::Stmt* child = &stmt;
    for (const clang::Stmt* ancestor = parentOf(child); ancestor;
         child = ancestor, ancestor = parentOf(child)) {
      const auto* branch = llvm::dyn_cast<clang::IfStmt>(ancestor);
      if (!branch || branch->getThen() != child) continue;
      std::vector<const clang::Expr*> tests;
      conjuncts(branch->getCond(), tests);
      std::optional<unsigned> end;
      std::optional<std::int64_t> slack;
      for (const clang::Expr* test : tests) {
        const auto* less = llvm::dyn_cast<clang::BinaryOperator>(test);
        if (!less || less->getOpcode() != clang::BO_LT) continue;
        std::int64_t shift = 0;
        const clang::VarDecl* tested = shiftedLocal(less->getLHS(), shift);
        if (!tested || shift != 0) continue;
        if (tested == &row) end = unchangedIntegerParam(less->getRHS());
        if (tested != &column) continue;
        std::vector<std::pair<const clang::Expr*, bool>> terms;
        splitSum(less->getRHS(), false, terms);
        std::int64_t constant = 0;
        bool named = false, other = false;
        for (const auto& [term, negated] : terms) {
          if (std::optional<std::int64_t> value = integerConstant(term))
            constant += negated ? -*value : *value;
          else if (unchangedIntegerParam(term) == width && !negated && !named)
            named = true;
          else
            other = true;
        }
        if (named && !other && constant <= 0) slack = -constant;
      }
      if (end && slack) return GridGuard{*end, *slack};
    }
    return std::nullopt;
  }

  static void conjuncts(const clang::Expr* test, std::vector<const clang::Expr*>& out) {
    test = test->IgnoreParenImpCasts();
    if (const auto* both = llvm::dyn_cast<clang::BinaryOperator>(test);
        both && both->getOpcode() == clang::BO_LAnd) {
      conjuncts(both->getLHS(), out);
      conjuncts(both->getRHS(), out);
      return;
    }
    out.push_back(test);
  }

  // A local initialized with the grid index and never changed after.
  bool isGridIndexVariable(const clang::VarDecl& variable) {
    if (!variable.hasLocalStorage() || !variable.getInit() || !isGridIndex(variable.getInit()))
      return false;
    auto known = gridIndexVariables_.find(&variable);
    if (known != gridIndexVariables_.end()) return known->second;
    return gridIndexVariables_[&variable] = !isChanged(variable);
  }

  // The `bool` parameter an enclosing `if` tests before `use` runs (`if (flag)`, `if (flag &&
  // ...)`, the access in the then-branch), when the kernel never changes it.
  std::optional<unsigned> guardingFlag(const clang::Stmt& use) {
    const clang::Stmt* child = &use;
    for (const clang::Stmt* parent = parentOf(child); parent;
         child = parent, parent = parentOf(parent)) {
      const auto* branch = llvm::dyn_cast<clang::IfStmt>(parent);
      if (!branch || branch->getThen() != child) continue;
      if (std::optional<unsigned> flag = testedFlag(branch->getCond())) return flag;
    }
    return std::nullopt;
  }

  std::optional<unsigned> testedFlag(const clang::Expr* test) {
    test = test->IgnoreParenImpCasts();
    if (const auto* both = llvm::dyn_cast<clang::BinaryOperator>(test);
        both && both->getOpcode() == clang::BO_LAnd) {
      if (std::optional<unsigned> flag = testedFlag(both->getLHS())) return flag;
      return testedFlag(both->getRHS());
    }
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(test);
    const auto* param =
        reference ? llvm::dyn_cast<clang::ParmVarDecl>(reference->getDecl()) : nullptr;
    if (!param || !param->getType()->isBooleanType() || isChanged(*param)) return std::nullopt;
    return param->getFunctionScopeIndex();
  }

  bool isChanged(const clang::VarDecl& variable) {
    class Writes : public clang::RecursiveASTVisitor<Writes> {
    public:
      Writes(const clang::VarDecl& variable, KernelBodyScanner& scanner)
          : variable_(variable), scanner_(scanner) {}
      bool VisitDeclRefExpr(clang::DeclRefExpr* reference) {
        if (reference->getDecl() != &variable_) return true;
        const clang::Stmt* parent = scanner_.parentOf(reference);
        while (parent && llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr>(parent) &&
               !(llvm::isa<clang::ImplicitCastExpr>(parent) &&
                 llvm::cast<clang::ImplicitCastExpr>(parent)->getCastKind() ==
                     clang::CK_LValueToRValue))
          parent = scanner_.parentOf(parent);
        if (const auto* binary = llvm::dyn_cast_or_null<clang::BinaryOperator>(parent))
          changed = changed || binary->isAssignmentOp();
        if (const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent))
          changed =
              changed || unary->isIncrementDecrementOp() || unary->getOpcode() == clang::UO_AddrOf;
        return true;
      }
      bool changed = false;

    private:
      const clang::VarDecl& variable_;
      KernelBodyScanner& scanner_;
    } writes(variable, *this);
    writes.TraverseStmt(kernel_.getBody());
    return writes.changed;
  }

  // For a pointer passed as argument to a device function with a body: what that function does
  // through its parameter.
  const CalleeParam* calleeParam(const clang::Stmt* argument, const clang::Stmt* parent) {
    const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(parent);
    const clang::FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
    if (!callee) return nullptr;
    for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i)
      if (call->getArg(i) == argument) {
        const std::vector<CalleeParam>* params = callees_.find(*callee);
        return params && i < params->size() ? &(*params)[i] : nullptr;
      }
    return nullptr;
  }

  // The count n of a guard `variable < n` that every execution of `stmt` passes.
  std::optional<ParamExtent> guardOf(const clang::Stmt& stmt, const clang::VarDecl& variable,
                                     const Origin& origin) {
    const clang::Stmt* child = &stmt;
    for (const clang::Stmt* ancestor = parentOf(child); ancestor;
         child = ancestor, ancestor = parentOf(child)) {
      std::optional<ParamExtent> bound;
      if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(ancestor);
          branch && branch->getThen() == child)
        bound = boundIn(branch->getCond(), variable, origin, clang::BO_LAnd);
      else if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(ancestor);
               loop && loop->getBody() == child)
        bound = boundIn(loop->getCond(), variable, origin, clang::BO_LAnd);
      else if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(ancestor);
               loop && loop->getBody() == child)
        bound = boundIn(loop->getCond(), variable, origin, clang::BO_LAnd);
      else if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(ancestor))
        bound = earlyReturnBound(*block, *child, variable, origin);
      if (bound) return bound;
    }
    return std::nullopt;
  }

  // An `if (variable >= n) return;` (or `|| ...`) among the statements of `block` before `child`.
  std::optional<ParamExtent> earlyReturnBound(const clang::CompoundStmt& block,
                                              const clang::Stmt& child,
                                              const clang::VarDecl& variable,
                                              const Origin& origin) {
    for (const clang::Stmt* statement : block.body()) {
      if (statement == &child) return std::nullopt;
      const auto* branch = llvm::dyn_cast<clang::IfStmt>(statement);
      if (!branch || branch->getElse()) continue;
      const clang::Stmt* then = branch->getThen();
      if (const auto* inner = llvm::dyn_cast<clang::CompoundStmt>(then);
          inner && inner->size() == 1)
        then = inner->body_front();
      if (!llvm::isa<clang::ReturnStmt>(then)) continue;
      if (auto bound = boundIn(branch->getCond(), variable, origin, clang::BO_LOr, true))
        return bound;
    }
    return std::nullopt;
  }

  // In `condition`, a comparison that bounds `variable` below a count n: `i < n` (`!exits`) or
  // `i >= n` (`exits`), or either side of the `junction` (&& to pass, || to exit).
  std::optional<ParamExtent> boundIn(const clang::Expr* condition, const clang::VarDecl& variable,
                                     const Origin& origin, clang::BinaryOperatorKind junction,
                                     bool exits = false) {
    const auto* binary =
        condition ? llvm::dyn_cast<clang::BinaryOperator>(condition->IgnoreParenImpCasts())
                  : nullptr;
    if (!binary) return std::nullopt;
    if (binary->getOpcode() == junction) {
      if (auto bound = boundIn(binary->getLHS(), variable, origin, junction, exits)) return bound;
      return boundIn(binary->getRHS(), variable, origin, junction, exits);
    }
    const clang::BinaryOperatorKind below = exits ? clang::BO_GE : clang::BO_LT;
    const clang::BinaryOperatorKind above = exits ? clang::BO_LE : clang::BO_GT;
    if (binary->getOpcode() == below && names(binary->getLHS(), variable))
      return countOf(binary->getRHS(), origin);
    if (binary->getOpcode() == above && names(binary->getRHS(), variable))
      return countOf(binary->getLHS(), origin);
    return std::nullopt;
  }

  static bool names(const clang::Expr* expr, const clang::VarDecl& variable) {
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
    return reference && reference->getDecl() == &variable;
  }

  // A count the launch's arguments hold: an integer parameter, or an integer member of the
  // struct parameter that holds the pointer `origin` names.
  std::optional<ParamExtent> countOf(const clang::Expr* expr, const Origin& origin) const {
    expr = expr->IgnoreParenImpCasts();
    if (!expr->getType()->isIntegerType()) return std::nullopt;
    if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr)) {
      for (unsigned i = 0; i < kernel_.getNumParams(); ++i)
        if (reference->getDecl() == kernel_.getParamDecl(i)) return countExtent(i, std::nullopt, 0);
      return std::nullopt;
    }
    const auto chain = memberChain(expr);
    if (!origin.field || !chain || chain->first != origin.param) return std::nullopt;
    std::int64_t offset = 0;
    for (const clang::FieldDecl* field : chain->second)
      offset += static_cast<std::int64_t>(
          context_.getASTRecordLayout(field->getParent()).getFieldOffset(field->getFieldIndex()) /
          context_.getCharWidth());
    return countExtent(origin.param, offset,
                       context_.getTypeSizeInChars(expr->getType()).getQuantity());
  }

  const clang::FunctionDecl& kernel_;
  const clang::ASTContext& context_;
  CalleeSummaries& callees_;
  clang::ParentMap parents_;
  std::map<const clang::VarDecl*, bool> gridIndexVariables_;
  std::map<const clang::Decl*, Origin> origin_;         // pointers and what they stand for
  std::map<const clang::Decl*, unsigned> structParams_; // struct parameters holding pointers
  std::vector<PointerUse> params_;
  std::vector<std::vector<PointerField>> fields_;
  std::vector<bool> opaque_; // a struct parameter used whole: its members' uses are unknown
};

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
  for (std::size_t i = 0; i < access.size(); ++i)
    params.push_back(CalleeParam{access[i], extents[i]});
  return &*(summaries_[definition] = std::move(params));
}

class KernelCollector : public clang::RecursiveASTVisitor<KernelCollector> {
public:
  explicit KernelCollector(clang::ASTContext& context)
      : context_(context), mangler_(context.createMangleContext()), callees_(context) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  // Library kernels (thrust, cub) are not the program's: skipping system headers keeps the walk
  // proportional to the user's code.
  bool TraverseDecl(clang::Decl* decl) {
    if (decl && !llvm::isa<clang::TranslationUnitDecl>(decl) &&
        context_.getSourceManager().isInSystemHeader(decl->getLocation()))
      return true;
    return clang::RecursiveASTVisitor<KernelCollector>::TraverseDecl(decl);
  }

  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    if (!function->hasAttr<clang::CUDAGlobalAttr>() || !function->doesThisDeclarationHaveABody() ||
        function->isDependentContext())
      return true;
    KernelSummary summary;
    summary.name = function->getQualifiedNameAsString();
    summary.mangledName = mangledName(*function);
    for (const clang::ParmVarDecl* param : function->parameters())
      summary.paramNames.push_back(param->getNameAsString());
    KernelBodyScanner scanner(*function, context_, callees_);
    scanner.TraverseStmt(function->getBody());
    summary.paramAccess = scanner.takeAccess();
    summary.paramExtent = scanner.takeExtents();
    summary.paramGuard = scanner.takeGuards();
    summary.paramFields = scanner.takeFields();
    summaries_[function->getCanonicalDecl()] = std::move(summary);
    return true;
  }

  KernelSummaries takeSummaries() { return std::move(summaries_); }

private:
  std::string mangledName(const clang::FunctionDecl& function) {
    if (!mangler_->shouldMangleDeclName(&function)) return function.getNameAsString();
    std::string name;
    llvm::raw_string_ostream stream(name);
    mangler_->mangleName(clang::GlobalDecl(&function, clang::KernelReferenceKind::Kernel), stream);
    return name;
  }

  clang::ASTContext& context_;
  std::unique_ptr<clang::MangleContext> mangler_;
  CalleeSummaries callees_;
  KernelSummaries summaries_;
};

} // namespace

// The words come from the contract the tracer reads them by (api_model/kernel_access.h).
const char* paramAccessName(ParamAccess access) {
  using api_model::kernel_access::ParameterAccess;
  using api_model::kernel_access::summary_word;
  switch (access) {
  case ParamAccess::None:
    return summary_word(ParameterAccess::None).data();
  case ParamAccess::Read:
    return summary_word(ParameterAccess::Read).data();
  case ParamAccess::Write:
    return summary_word(ParameterAccess::Write).data();
  case ParamAccess::ReadWrite:
  case ParamAccess::Atomic: // the access the tracer knows; the summary adds kParamAtomicKey
    return summary_word(ParameterAccess::ReadWrite).data();
  }
  return summary_word(ParameterAccess::None).data();
}

KernelSummaries summarizeKernels(clang::ASTContext& context) {
  KernelCollector collector(context);
  collector.TraverseDecl(context.getTranslationUnitDecl());
  return collector.takeSummaries();
}

namespace {

namespace ka = api_model::kernel_access;

// The keys an access and its extent share, on a parameter and on a struct member.
void addAccess(llvm::json::Object& entry, ParamAccess access,
               const std::optional<ParamExtent>& extent) {
  entry[ka::kParamAccessKey] = paramAccessName(access);
  if (access == ParamAccess::Atomic) entry[ka::kParamAtomicKey] = true;
  if (!extent) return;
  switch (extent->kind) {
  case ParamExtent::Kind::Bytes:
    entry[ka::kParamBytesKey] = extent->elementBytes;
    return;
  case ParamExtent::Kind::Threads:
    entry[ka::kParamThreadsKey] = true;
    entry[ka::kParamElementBytesKey] = extent->elementBytes;
    return;
  case ParamExtent::Kind::Rows:
    return; // the tracer reads rows as the whole allocation
  case ParamExtent::Kind::Count:
    break;
  }
  entry[ka::kParamCountParamKey] = static_cast<int64_t>(extent->countParam);
  entry[ka::kParamElementBytesKey] = extent->elementBytes;
  if (extent->countOffset) {
    entry[ka::kCountOffsetKey] = *extent->countOffset;
    entry[ka::kCountBytesKey] = extent->countBytes;
  }
}

} // namespace

llvm::json::Value kernelSummariesToJson(const std::vector<KernelSummary>& kernels) {
  llvm::json::Array array;
  for (const KernelSummary& kernel : kernels) {
    llvm::json::Array params;
    for (std::size_t i = 0; i < kernel.paramAccess.size(); ++i) {
      llvm::json::Object param{{ka::kParamIndexKey, static_cast<int64_t>(i)},
                               {ka::kParamNameKey, kernel.paramNames[i]}};
      addAccess(param, kernel.paramAccess[i],
                i < kernel.paramExtent.size() ? kernel.paramExtent[i] : std::nullopt);
      if (i < kernel.paramFields.size() && !kernel.paramFields[i].empty()) {
        llvm::json::Array fields;
        for (const FieldSummary& field : kernel.paramFields[i]) {
          llvm::json::Object entry{{ka::kFieldOffsetKey, field.offset},
                                   {ka::kParamNameKey, field.name}};
          addAccess(entry, field.access, field.extent);
          fields.push_back(std::move(entry));
        }
        param[ka::kParamFieldsKey] = std::move(fields);
      }
      params.push_back(std::move(param));
    }
    array.push_back(llvm::json::Object{{ka::kKernelNameKey, kernel.name},
                                       {ka::kMangledNameKey, kernel.mangledName},
                                       {ka::kParamsKey, std::move(params)}});
  }
  return llvm::json::Object{{ka::kVersionKey, ka::kSummariesVersion},
                            {ka::kKernelsKey, std::move(array)}};
}

} // namespace streamrace::analyzer
