// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_pass_diagnostics.h"

#include "clang/Basic/DiagnosticSema.h"

namespace streamrace::analyzer {
namespace {

bool acceptedByNvcc(unsigned id) {
  // A dependent type name without `typename` where only a type fits: EDG (nvcc's front end)
  // accepts it, clang recovers by reading it as a type. An `alignas` weaker than its type's own
  // alignment (`alignas(64) CUtensorMap map`, which CUDA 13 aligns to 128): GCC ignores it, clang
  // keeps the type's alignment.
  return id == clang::diag::err_shared_var_init || id == clang::diag::err_typename_missing ||
         id == clang::diag::err_alignas_underaligned;
}

class NvccAcceptedErrorFilter : public clang::DiagnosticConsumer {
public:
  NvccAcceptedErrorFilter(clang::DiagnosticsEngine& engine, unsigned errorLimit,
                          clang::DiagnosticConsumer& next,
                          std::unique_ptr<clang::DiagnosticConsumer> owned)
      : engine_(engine), errorLimit_(errorLimit), next_(next), owned_(std::move(owned)) {}

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
      // The engine counts the dropped errors towards -ferror-limit: without this, a header
      // instantiated many times stops the file after 20 of them.
      ++dropped_;
      if (errorLimit_ != 0) engine_.setErrorLimit(errorLimit_ + dropped_);
      return;
    }
    // The notes of a dropped error go with it.
    if (level == clang::DiagnosticsEngine::Note && dropping_) return;
    dropping_ = false;
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    next_.HandleDiagnostic(level, info);
  }

private:
  clang::DiagnosticsEngine& engine_;
  const unsigned errorLimit_;
  clang::DiagnosticConsumer& next_;
  std::unique_ptr<clang::DiagnosticConsumer> owned_;
  bool dropping_ = false;
  unsigned dropped_ = 0;
};

} // namespace

void dropErrorsNvccAccepts(clang::DiagnosticsEngine& diagnostics, unsigned errorLimit) {
  clang::DiagnosticConsumer* current = diagnostics.getClient();
  if (!current) return;
  std::unique_ptr<clang::DiagnosticConsumer> owned = diagnostics.takeClient();
  // The engine takes ownership of a raw pointer.
  diagnostics.setClient(
      std::make_unique<NvccAcceptedErrorFilter>(diagnostics, errorLimit, *current, std::move(owned))
          .release(),
      /*ShouldOwnClient=*/true);
}

void SilentErrorCounter::HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                                          const clang::Diagnostic& info) {
  if (level >= clang::DiagnosticsEngine::Error && acceptedByNvcc(info.getID())) return;
  clang::DiagnosticConsumer::HandleDiagnostic(level, info);
}

} // namespace streamrace::analyzer
