// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/analyzer/kernel_summary.h"

#include "kernel_body_scanner.h"

#include "streamrace/api_model/kernel_access.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <memory>

namespace streamrace::analyzer {
namespace {

using kernel_scan::CalleeSummaries;
using kernel_scan::KernelBodyScanner;

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
  using api_model::kernel_access::summaryWord;
  switch (access) {
  case ParamAccess::None:
    return summaryWord(ParameterAccess::None).data();
  case ParamAccess::Read:
    return summaryWord(ParameterAccess::Read).data();
  case ParamAccess::Write:
    return summaryWord(ParameterAccess::Write).data();
  case ParamAccess::ReadWrite:
  case ParamAccess::Atomic: // the access the tracer knows; the summary adds kParamAtomicKey
    return summaryWord(ParameterAccess::ReadWrite).data();
  }
  return summaryWord(ParameterAccess::None).data();
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
