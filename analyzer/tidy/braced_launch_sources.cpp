// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "braced_launch_sources.h"

#include "launch_config_braces.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/PPCallbacks.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace streamrace::analyzer {
namespace {

void rewrite(clang::SourceManager& sources, clang::FileEntryRef file) {
  std::optional<llvm::MemoryBufferRef> contents = sources.getMemoryBufferForFileOrNone(file);
  if (!contents) return;
  // A file seen again was rewritten the first time, or had no room to be: it has nothing left to
  // rewrite, so a buffer the lexer may be reading is never replaced.
  std::optional<std::string> rewritten = bracedLaunchConfigsAsDim3(contents->getBuffer());
  if (!rewritten) return;
  sources.overrideFileContents(file,
                               llvm::MemoryBuffer::getMemBufferCopy(*rewritten, file.getName()));
}

class IncludedFileRewriter : public clang::PPCallbacks {
public:
  explicit IncludedFileRewriter(clang::SourceManager& sources) : sources_(sources) {}

  void InclusionDirective(clang::SourceLocation, const clang::Token&, llvm::StringRef, bool,
                          clang::CharSourceRange, clang::OptionalFileEntryRef file, llvm::StringRef,
                          llvm::StringRef, const clang::Module*, bool,
                          clang::SrcMgr::CharacteristicKind) override {
    if (file) rewrite(sources_, *file);
  }

private:
  clang::SourceManager& sources_;
};

} // namespace

void readBracedLaunchConfigsAsDim3(clang::Preprocessor& preprocessor) {
  clang::SourceManager& sources = preprocessor.getSourceManager();
  if (clang::OptionalFileEntryRef main = sources.getFileEntryRefForID(sources.getMainFileID()))
    rewrite(sources, *main);
  preprocessor.addPPCallbacks(std::make_unique<IncludedFileRewriter>(sources));
}

} // namespace streamrace::analyzer
