// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_pass_diagnostics.h"

#include "clang/Basic/DiagnosticSema.h"

namespace streamrace::analyzer {
namespace {

bool acceptedByNvcc(unsigned id) {
  // A dependent type name without `typename` where only a type fits: EDG (nvcc's front end)
  // accepts it, clang recovers by reading it as a type.
  return id == clang::diag::err_shared_var_init || id == clang::diag::err_typename_missing;
}

class NvccAcceptedErrorFilter : public clang::DiagnosticConsumer {
public:
  NvccAcceptedErrorFilter(clang::DiagnosticConsumer& next,
                          std::unique_ptr<clang::DiagnosticConsumer> owned)
      : next_(next), owned_(std::move(owned)) {}

  void BeginSourceFile(const clang::LangOptions& options,
                       const clang::Preprocessor* preprocessor) override {
    next_.BeginSourceFile(options, preprocessor);
  }
  void EndSourceFile() override { next_.EndSourceFile(); }
  void finish() override { next_.finish(); }
  bool IncludeInDiagnosticCounts() const override { return next_.IncludeInDiagnosticCounts(); }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    if (level >= clang::DiagnosticsEngine::Error && acceptedByNvcc(info.getID())) {
      dropping_ = true;
      return;
    }
    // The notes of a dropped error go with it.
    if (level == clang::DiagnosticsEngine::Note && dropping_) return;
    dropping_ = false;
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    next_.HandleDiagnostic(level, info);
  }

private:
  clang::DiagnosticConsumer& next_;
  std::unique_ptr<clang::DiagnosticConsumer> owned_;
  bool dropping_ = false;
};

} // namespace

void dropErrorsNvccAccepts(clang::DiagnosticsEngine& diagnostics) {
  clang::DiagnosticConsumer* current = diagnostics.getClient();
  if (!current) return;
  std::unique_ptr<clang::DiagnosticConsumer> owned = diagnostics.takeClient();
  // The engine takes ownership of a raw pointer.
  diagnostics.setClient(
      std::make_unique<NvccAcceptedErrorFilter>(*current, std::move(owned)).release(),
      /*ShouldOwnClient=*/true);
}

void SilentErrorCounter::HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                                          const clang::Diagnostic& info) {
  if (level >= clang::DiagnosticsEngine::Error && acceptedByNvcc(info.getID())) return;
  clang::DiagnosticConsumer::HandleDiagnostic(level, info);
}

} // namespace streamrace::analyzer
