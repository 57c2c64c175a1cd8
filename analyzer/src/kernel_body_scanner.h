// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a kernel's body does through each pointer it is given: the scanner behind kernel summaries
// (kernel_summary.h). Its functions are defined by concern: kernel_body_scanner.cpp follows each
// pointer to its uses and decides the access; kernel_extents.cpp decides how far past the pointer
// those uses reach (counts, grid indices, rows, guards).
#pragma once

#include "streamrace/analyzer/kernel_summary.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace streamrace::analyzer::kernel_scan {

// Where a kernel's accesses come from: a pointer parameter, or (`field` set) one pointer member
// of a struct parameter passed by value.
struct Origin {
  unsigned param = 0;
  std::optional<std::size_t> field;
};

// What the kernel does through one pointer: its access, and its extent while every access is
// bounded by the same count.
struct PointerUse {
  ParamAccess access = ParamAccess::None;
  std::optional<ParamExtent> extent;
  bool unbounded = false;
  std::optional<unsigned> guard;
  bool unguarded = false;

  void add(ParamAccess use, const std::optional<ParamExtent>& bound,
           std::optional<unsigned> underFlag = std::nullopt);
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

class KernelBodyScanner : public clang::RecursiveASTVisitor<KernelBodyScanner> {
public:
  KernelBodyScanner(const clang::FunctionDecl& kernel, const clang::ASTContext& context,
                    CalleeSummaries& callees);

  // Pointers derived from a parameter or a member (`float* row = x + offset;`) stand for it.
  bool VisitVarDecl(clang::VarDecl* var);

  bool VisitDeclRefExpr(clang::DeclRefExpr* reference);

  std::vector<std::optional<unsigned>> takeGuards() const;

  // Per parameter: its access; a struct used only through its members has their access merged,
  // one used whole is read and written.
  std::vector<ParamAccess> takeAccess() const;

  std::vector<std::optional<ParamExtent>> takeExtents() const;

  std::vector<std::vector<FieldSummary>> takeFields() const;

private:
  // The pointer members of `record` (at `offset` bytes into the parameter), nested structs
  // included; false when a pointer sits where no member path names it alone (an array, a union,
  // a base class, a virtual table).
  bool collectPointerFields(const clang::RecordDecl& declared, std::int64_t offset,
                            const std::string& prefix, std::vector<const clang::FieldDecl*>& path,
                            std::vector<PointerField>& out) const;

  PointerUse& useAt(const Origin& origin);

  // `param.a.b`: the struct parameter and the members named, when `expr` is such a chain.
  std::optional<std::pair<unsigned, std::vector<const clang::FieldDecl*>>>
  memberChain(const clang::Expr* expr) const;

  std::optional<std::size_t>
  pointerFieldIndex(unsigned param, const std::vector<const clang::FieldDecl*>& path) const;

  // A use of struct parameter `param`: through a pointer member, that member's access; through
  // a member without pointers, nothing; the struct (or a part holding pointers) used whole makes
  // the parameter opaque.
  void useOfStruct(const clang::DeclRefExpr& reference, unsigned param);

  std::optional<Origin> derivedOrigin(const clang::Expr* expr);

  // The pointer value flows up through casts and pointer arithmetic; the first dereference
  // decides read or write; anything else (a call, an escape into memory) counts as both.
  ParamAccess useOf(const clang::Expr* pointer);

  // `if (p)`, `p && ...`, `!p`, `p ? a : b`: the pointer is tested, its memory untouched.
  static bool isNullTest(const clang::Stmt* pointer, const clang::Stmt* parent);

  // An lvalue naming pointed-to memory: written when assigned, read when loaded.
  ParamAccess accessOfElement(const clang::Expr* element);

  // Whether `address` is the target (first argument) of an atomic call `user`.
  static bool isAtomicTarget(const clang::Stmt* address, const clang::Stmt* user);

  const clang::Stmt* parentOf(const clang::Stmt* stmt);

  // How far the kernel reaches through `pointer` at this use: `p[i]` under a guard `i < n` (n
  // an integer parameter or, for a pointer member, an integer member of the same struct) n
  // elements; `p[k]` (k a constant), `*p`, `p->m` k + 1 elements; `p[i]` with i the thread's
  // 1-D grid index (`blockIdx.x * blockDim.x + threadIdx.x`, or `threadIdx.x`) one element per
  // thread of the launch; passed to a device function, what that function's use is.
  std::optional<ParamExtent> extentOf(const clang::Expr& pointer, const Origin& origin);

  std::optional<ParamExtent> fixedBytes(clang::QualType element, std::int64_t elements) const;

  std::optional<ParamExtent> elementExtent(const clang::ArraySubscriptExpr& subscript,
                                           const Origin& origin);

  // `threadIdx.x`, or `blockIdx.x * blockDim.x + threadIdx.x` in any order: below the launch's
  // threads in x.
  bool isGridIndex(const clang::Expr* expr);

  // `variable.x` for CUDA's built-in variable `variable` (a property in clang's headers, a
  // member of a struct in plain declarations).
  static bool isBuiltin(const clang::Expr* expr, llvm::StringRef variable,
                        llvm::StringRef dimension = "x");

  // `p[row * width + col]` (ParamExtent::Kind::Rows) at this subscript, with `index` its index.
  std::optional<ParamExtent> rowsExtent(const clang::ArraySubscriptExpr& subscript,
                                        const clang::Expr& index);

  static void splitSum(const clang::Expr* expr, bool negated,
                       std::vector<std::pair<const clang::Expr*, bool>>& terms);

  std::optional<std::int64_t> integerConstant(const clang::Expr* expr) const;

  // A local integer the kernel never changes after its initialization.
  const clang::VarDecl* localVariable(const clang::Expr* expr);

  // `local` or `(local ± constant)`, the constant put in `shift`.
  const clang::VarDecl* shiftedLocal(const clang::Expr* expr, std::int64_t& shift);

  std::optional<unsigned> unchangedIntegerParam(const clang::Expr* expr);

  // Whether `expr` is the thread's grid index in `dimension` (`blockIdx.d * blockDim.d +
  // threadIdx.d`), plus at most one integer parameter (`param`) and constants (`start`).
  bool gridStart(const clang::Expr* expr, llvm::StringRef dimension, std::optional<unsigned>& param,
                 std::int64_t& start);

  struct GridGuard {
    unsigned endRowParam = 0;
    std::int64_t columnSlack = 0; // k in `col < width - k`
  };

  // An enclosing `if (row < end && col < width - k)` whose then-branch holds `stmt`.
  std::optional<GridGuard> gridGuard(const clang::Stmt& stmt, const clang::VarDecl& row,
                                     const clang::VarDecl& column, unsigned width);

  static void conjuncts(const clang::Expr* test, std::vector<const clang::Expr*>& out);

  // A local initialized with the grid index and never changed after.
  bool isGridIndexVariable(const clang::VarDecl& variable);

  // The `bool` parameter an enclosing `if` tests before `use` runs (`if (flag)`, `if (flag &&
  // ...)`, the access in the then-branch), when the kernel never changes it.
  std::optional<unsigned> guardingFlag(const clang::Stmt& use);

  std::optional<unsigned> testedFlag(const clang::Expr* test);

  bool isChanged(const clang::VarDecl& variable);

  // For a pointer passed as argument to a device function with a body: what that function does
  // through its parameter.
  const CalleeParam* calleeParam(const clang::Stmt* argument, const clang::Stmt* parent);

  // The count n of a guard `variable < n` that every execution of `stmt` passes.
  std::optional<ParamExtent> guardOf(const clang::Stmt& stmt, const clang::VarDecl& variable,
                                     const Origin& origin);

  // An `if (variable >= n) return;` (or `|| ...`) among the statements of `block` before `child`.
  std::optional<ParamExtent> earlyReturnBound(const clang::CompoundStmt& block,
                                              const clang::Stmt& child,
                                              const clang::VarDecl& variable, const Origin& origin);

  // In `condition`, a comparison that bounds `variable` below a count n: `i < n` (`!exits`) or
  // `i >= n` (`exits`), or either side of the `junction` (&& to pass, || to exit).
  std::optional<ParamExtent> boundIn(const clang::Expr* condition, const clang::VarDecl& variable,
                                     const Origin& origin, clang::BinaryOperatorKind junction,
                                     bool exits = false);

  static bool names(const clang::Expr* expr, const clang::VarDecl& variable);

  // A count the launch's arguments hold: an integer parameter, or an integer member of the
  // struct parameter that holds the pointer `origin` names.
  std::optional<ParamExtent> countOf(const clang::Expr* expr, const Origin& origin) const;

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

} // namespace streamrace::analyzer::kernel_scan
