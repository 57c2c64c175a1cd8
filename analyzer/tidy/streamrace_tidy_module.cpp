// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The analyzer as a clang-tidy module: clang-tidy-22 --load=libstreamrace-tidy.so
// --checks='streamrace-*'. Each check reports its share of one analysis per translation unit, so
// the findings are the ones streamrace-check prints.
#include "braced_launch_sources.h"
#include "streamrace/analyzer/analysis.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

#include <optional>

namespace streamrace::analyzer {
namespace {

// The findings of the translation unit being checked, computed by whichever check asks first.
class SharedAnalysis {
public:
  const std::vector<Finding>& findingsFor(clang::ASTContext& context,
                                          const std::string& modelFile) {
    if (context_ != &context || !findings_) {
      context_ = &context;
      AnalysisOptions options;
      loadModel(modelFile);
      options.userModel = model_ ? &*model_ : nullptr;
      findings_ = analyzeTranslationUnit(context, options).findings;
    }
    return *findings_;
  }

  // Every check is handed the preprocessor; its sources are prepared once.
  void prepareSources(clang::Preprocessor& preprocessor) {
    if (preparedFor_ == &preprocessor) return;
    preparedFor_ = &preprocessor;
    readBracedLaunchConfigsAsDim3(preprocessor);
  }

  void endOfTranslationUnit() {
    context_ = nullptr;
    findings_.reset();
    preparedFor_ = nullptr;
  }

  std::optional<std::string> takeModelError() {
    std::optional<std::string> error = std::move(modelError_);
    modelError_.reset();
    return error;
  }

private:
  void loadModel(const std::string& modelFile) {
    if (modelFile == modelFile_) return;
    modelFile_ = modelFile;
    model_.reset();
    if (modelFile.empty()) return;
    llvm::Expected<UserModel> loaded = loadUserModel(modelFile);
    if (loaded)
      model_ = std::move(*loaded);
    else
      modelError_ = llvm::toString(loaded.takeError());
  }

  clang::ASTContext* context_ = nullptr;
  const clang::Preprocessor* preparedFor_ = nullptr;
  std::optional<std::vector<Finding>> findings_;
  std::string modelFile_;
  std::optional<UserModel> model_;
  std::optional<std::string> modelError_;
};

SharedAnalysis& sharedAnalysis() {
  static SharedAnalysis analysis;
  return analysis;
}

class StreamraceCheck : public clang::tidy::ClangTidyCheck {
public:
  StreamraceCheck(llvm::StringRef name, clang::tidy::ClangTidyContext* context)
      : ClangTidyCheck(name, context),
        modelFile_(Options.getLocalOrGlobal("StreamraceModelFile", "")) {}

  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap& options) override {
    Options.store(options, "StreamraceModelFile", modelFile_);
  }

  void registerPPCallbacks(const clang::SourceManager&, clang::Preprocessor* preprocessor,
                           clang::Preprocessor*) override {
    sharedAnalysis().prepareSources(*preprocessor);
  }

  void registerMatchers(clang::ast_matchers::MatchFinder* finder) override {
    finder->addMatcher(clang::ast_matchers::translationUnitDecl().bind("unit"), this);
  }

  void check(const clang::ast_matchers::MatchFinder::MatchResult& result) override {
    const std::vector<Finding>& findings =
        sharedAnalysis().findingsFor(*result.Context, modelFile_);
    if (std::optional<std::string> error = sharedAnalysis().takeModelError())
      configurationDiag("%0") << *error;
    for (const Finding& finding : findings) {
      if (finding.check != getID()) continue;
      {
        clang::DiagnosticBuilder warning = diag(finding.location, "%0") << finding.message;
        for (const clang::FixItHint& fix : finding.fixes)
          warning << fix;
      }
      for (const FindingNote& note : finding.notes)
        diag(note.location, "%0", clang::DiagnosticIDs::Note) << note.message;
    }
  }

  void onEndOfTranslationUnit() override { sharedAnalysis().endOfTranslationUnit(); }

private:
  std::string modelFile_;
};

class StreamraceModule : public clang::tidy::ClangTidyModule {
public:
  void addCheckFactories(clang::tidy::ClangTidyCheckFactories& factories) override {
    for (const char* check : kAllChecks)
      factories.registerCheckFactory(
          check, [](llvm::StringRef name, clang::tidy::ClangTidyContext* context) {
            return std::make_unique<StreamraceCheck>(name, context);
          });
  }
};

} // namespace

static clang::tidy::ClangTidyModuleRegistry::Add<StreamraceModule>
    registration("streamrace-module", "Races between asynchronous CUDA/NCCL work on streams.");

} // namespace streamrace::analyzer
