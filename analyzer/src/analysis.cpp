// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The analysis of one translation unit: every host function defined in the main file (each
// template instantiation and lambda too) is a root of the flow engine.
#include "streamrace/analyzer/analysis.h"

#include "checks/check.h"
#include "finding_sink.h"
#include "flow_engine.h"
#include "remark_sink.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <set>

namespace streamrace::analyzer {
namespace {

bool isHostCode(const clang::FunctionDecl& function) {
  if (function.hasAttr<clang::CUDAGlobalAttr>()) return false;
  return !function.hasAttr<clang::CUDADeviceAttr>() || function.hasAttr<clang::CUDAHostAttr>();
}

class HostFunctionCollector : public clang::RecursiveASTVisitor<HostFunctionCollector> {
public:
  explicit HostFunctionCollector(const clang::SourceManager& sources) : sources_(sources) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBody() const { return true; }

  // Only the main file's functions are analyzed, and the project's headers teach facts: skip
  // everything system headers declare, except the containers (namespaces, extern "C" blocks) a
  // declaration of ours may sit in.
  bool TraverseDecl(clang::Decl* decl) {
    if (decl &&
        !llvm::isa<clang::TranslationUnitDecl, clang::NamespaceDecl, clang::LinkageSpecDecl>(
            decl) &&
        sources_.isInSystemHeader(sources_.getExpansionLoc(decl->getLocation())))
      return true;
    return clang::RecursiveASTVisitor<HostFunctionCollector>::TraverseDecl(decl);
  }

  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    if (!function->doesThisDeclarationHaveABody() || function->isDependentContext() ||
        function->isImplicit() || !isHostCode(*function))
      return true;
    const clang::SourceLocation where = sources_.getExpansionLoc(function->getLocation());
    if (sources_.isInSystemHeader(where)) return true;
    if (sources_.isInMainFile(where)) functions.push_back(function);
    project.push_back(function);
    return true;
  }

  // The instantiations of a member template are listed under its declaration in the class, which
  // may sit in a header this visitor skips: take them from the main file's definition too.
  bool VisitFunctionTemplateDecl(clang::FunctionTemplateDecl* templated) {
    for (clang::FunctionDecl* specialization : templated->specializations())
      VisitFunctionDecl(specialization);
    return true;
  }

  bool VisitLambdaExpr(clang::LambdaExpr* lambda) {
    const clang::CXXMethodDecl* call = lambda->getCallOperator();
    if (call && !call->isDependentContext() && call->hasBody() &&
        sources_.isInMainFile(sources_.getExpansionLoc(call->getLocation()))) {
      functions.push_back(call);
      project.push_back(call);
    }
    return true;
  }

  std::vector<const clang::FunctionDecl*> functions; // the main file's
  std::vector<const clang::FunctionDecl*> project;   // and the project's headers'

private:
  const clang::SourceManager& sources_;
};

} // namespace

AnalysisResult analyzeTranslationUnit(clang::ASTContext& context, const AnalysisOptions& options) {
  HostFunctionCollector collector(context.getSourceManager());
  collector.TraverseDecl(context.getTranslationUnitDecl());
  FindingSink sink(context.getSourceManager());
  RemarkSink remarks(context.getSourceManager());
  FlowEngine engine(context, options, makeChecks(context, sink), remarks, collector.functions,
                    collector.project);
  std::set<const clang::FunctionDecl*> analyzed;
  for (const clang::FunctionDecl* function : collector.functions)
    if (analyzed.insert(function).second) engine.analyzeFunction(*function);
  if (options.externalDefinitions)
    for (const ExternalDefinitions::Miss& miss : options.externalDefinitions->takeMisses())
      remarks.remark(
          RemarkKind::ExternalDefinitionMissed, miss.declaration->getLocation(),
          "calls to '" + miss.declaration->getNameAsString() +
              "' are not followed into its body in another translation unit: " + miss.reason);
  AnalysisResult result;
  result.findings = sink.takeFindings();
  result.remarks = remarks.takeRemarks();
  result.functionsAnalyzed = static_cast<unsigned>(analyzed.size());
  if (options.adviseSyncs && !options.removedCall) {
    const AnalyzeWithout analyzeWithout = [&](const clang::CallExpr& call,
                                              const std::set<const clang::FunctionDecl*>& roots) {
      AnalysisOptions without = options;
      without.removedCall = &call;
      FindingSink findings(context.getSourceManager());
      RemarkSink ignored(context.getSourceManager());
      FlowEngine rerun(context, without, makeChecks(context, findings), ignored,
                       collector.functions, collector.project);
      for (const clang::FunctionDecl* root : roots)
        rerun.analyzeFunction(*root);
      return findings.takeFindings();
    };
    result.advice = adviseHostWaits(engine.hostFacts(), result.findings, analyzeWithout, context);
  }
  return result;
}

} // namespace streamrace::analyzer
