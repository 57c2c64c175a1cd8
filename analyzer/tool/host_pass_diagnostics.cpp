// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_pass_diagnostics.h"

#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/SourceManager.h"

#include <string_view>

namespace streamrace::analyzer {
namespace {

// The source text from where the diagnostic points to the end of its file (where macros spell
// it); empty when there is none.
std::string_view textAt(const clang::Diagnostic& info) {
  if (!info.hasSourceManager() || info.getLocation().isInvalid()) return {};
  const clang::SourceManager& sources = info.getSourceManager();
  const auto [file, offset] = sources.getDecomposedLoc(sources.getSpellingLoc(info.getLocation()));
  bool invalid = false;
  const std::string_view text = sources.getBufferData(file, &invalid);
  if (invalid || offset >= text.size()) return {};
  return text.substr(offset);
}

// Whether the name the diagnostic points at is called: after it and its template arguments, if
// any, comes an opening parenthesis. Anything the text cannot show counts as a call.
bool namesACall(const clang::Diagnostic& info) {
  const std::string_view text = textAt(info);
  std::size_t at = 0;
  const auto isNameCharacter = [](char c) {
    return c == '_' || c == ':' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z');
  };
  const auto skipSpace = [&] {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n'))
      ++at;
  };
  while (at < text.size() && isNameCharacter(text[at]))
    ++at;
  skipSpace();
  if (at < text.size() && text[at] == '<') {
    int depth = 0;
    for (; at < text.size(); ++at) {
      if (text[at] == '<' || text[at] == '(') ++depth;
      if ((text[at] == '>' || text[at] == ')') && --depth == 0) break;
    }
    if (at == text.size()) return true;
    ++at;
    skipSpace();
  }
  return at >= text.size() || text[at] == '(';
}

bool acceptedByNvcc(const clang::Diagnostic& info) {
  const unsigned id = info.getID();
  // A dependent type name without `typename` where only a type fits: EDG (nvcc's front end)
  // accepts it, clang recovers by reading it as a type. An `alignas` weaker than its type's own
  // alignment (`alignas(64) CUtensorMap map`, which CUDA 13 aligns to 128): GCC ignores it, clang
  // keeps the type's alignment; after `__device__` (`__device__ alignas(128) CUtensorMap
  // maps[64];`) clang takes it for an attribute of the type and ignores it. A `__device__` function
  // named but not called in host code (TransformerEngine's `constexpr auto op = (OP == nullptr) ?
  // detail::identity : OP;`, handed on as a template argument): nvcc takes its address, and so does
  // clang past the error; a host call of a device function stays an error, as in nvcc.
  return id == clang::diag::err_shared_var_init || id == clang::diag::err_typename_missing ||
         id == clang::diag::err_alignas_underaligned ||
         (id == clang::diag::err_attribute_not_type_attr && textAt(info).starts_with("alignas")) ||
         (id == clang::diag::err_ref_bad_target && !namesACall(info));
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
    if (level >= clang::DiagnosticsEngine::Error && acceptedByNvcc(info)) {
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
  if (level >= clang::DiagnosticsEngine::Error && acceptedByNvcc(info)) return;
  clang::DiagnosticConsumer::HandleDiagnostic(level, info);
}

} // namespace streamrace::analyzer
