// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "launch_config_braces.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <vector>

namespace streamrace::analyzer {
namespace {

constexpr llvm::StringLiteral kDim3 = "dim3";

bool isSpace(char c) {
  return c == ' ' || c == '\t';
}

bool isPunctuation(char c) {
  return llvm::StringRef(",(){}[];").contains(c);
}

// Where a launch configuration starting just after `<<<` ends (the first `>` of its `>>>`), and
// the offsets of its top-level arguments that start with `{`.
struct Configuration {
  std::size_t end = 0;
  std::vector<std::size_t> braces;
};

// Nullopt when the text after `<<<` does not close as a configuration would (a comment that
// mentions `<<<`).
std::optional<Configuration> scanConfiguration(llvm::StringRef text, std::size_t begin) {
  Configuration configuration;
  int depth = 0;
  bool argumentStart = true;
  for (std::size_t i = begin; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      for (++i; i < text.size() && text[i] != c; ++i)
        if (text[i] == '\\') ++i;
      argumentStart = false;
      continue;
    }
    if (depth == 0 && text.substr(i).starts_with(">>>")) {
      configuration.end = i;
      return configuration;
    }
    if (isSpace(c) || c == '\n' || c == '\r') continue;
    if (c == ';') return std::nullopt;
    if (c == '{' && depth == 0 && argumentStart) configuration.braces.push_back(i);
    argumentStart = depth == 0 && c == ',';
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return std::nullopt;
      --depth;
    }
  }
  return std::nullopt;
}

// Offsets of spaces that can go without joining two tokens (indentation, spaces next to
// punctuation) outside string literals and comments, from the line start `from` to its end.
std::vector<std::size_t> removableSpaces(llvm::StringRef text, std::size_t from) {
  std::vector<std::size_t> spaces;
  char quote = 0;
  for (std::size_t i = from; i < text.size() && text[i] != '\n'; ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') break;
    if (!isSpace(c)) continue;
    const bool afterPunctuation =
        i == 0 || isPunctuation(text[i - 1]) || isSpace(text[i - 1]) || text[i - 1] == '\n';
    const bool beforePunctuation = i + 1 < text.size() && isPunctuation(text[i + 1]);
    if (afterPunctuation || beforePunctuation) spaces.push_back(i);
  }
  return spaces;
}

class RewrittenFile : public llvm::vfs::File {
public:
  RewrittenFile(llvm::vfs::Status status, std::unique_ptr<llvm::MemoryBuffer> contents)
      : status_(std::move(status)), contents_(std::move(contents)) {}

  llvm::ErrorOr<llvm::vfs::Status> status() override { return status_; }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> getBuffer(const llvm::Twine& name, int64_t,
                                                               bool, bool) override {
    return llvm::MemoryBuffer::getMemBufferCopy(contents_->getBuffer(), name);
  }
  std::error_code close() override { return {}; }

private:
  llvm::vfs::Status status_;
  std::unique_ptr<llvm::MemoryBuffer> contents_;
};

class LaunchConfigFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  using ProxyFileSystem::ProxyFileSystem;

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine& path) override {
    auto file = ProxyFileSystem::openFileForRead(path);
    if (!file) return file;
    llvm::ErrorOr<llvm::vfs::Status> status = (*file)->status();
    if (!status || !status->isRegularFile()) return file;
    auto contents = (*file)->getBuffer(path, status->getSize(), true, false);
    if (!contents) return contents.getError();
    const llvm::StringRef text = (*contents)->getBuffer();
    std::optional<std::string> rewritten = bracedLaunchConfigsAsDim3(text);
    std::unique_ptr<llvm::MemoryBuffer> kept =
        rewritten ? llvm::MemoryBuffer::getMemBufferCopy(*rewritten, path) : std::move(*contents);
    return std::make_unique<RewrittenFile>(*status, std::move(kept));
  }
};

} // namespace

std::optional<std::string> bracedLaunchConfigsAsDim3(llvm::StringRef text) {
  std::optional<std::string> rewritten;
  std::size_t launch = text.find("<<<");
  while (launch != llvm::StringRef::npos) {
    const llvm::StringRef current = rewritten ? llvm::StringRef(*rewritten) : text;
    const std::size_t begin = launch + 3;
    std::optional<Configuration> configuration = scanConfiguration(current, begin);
    if (!configuration || configuration->braces.empty()) {
      launch = current.find("<<<", begin);
      continue;
    }
    const std::size_t lineStart = current.rfind('\n', configuration->braces.front());
    std::vector<std::size_t> spaces =
        removableSpaces(current, lineStart == llvm::StringRef::npos ? 0 : lineStart + 1);
    const std::size_t needed = kDim3.size() * configuration->braces.size();
    if (spaces.size() < needed) {
      launch = current.find("<<<", configuration->end);
      continue;
    }
    // Spaces inside the configuration first, so tokens outside it keep their columns; then the
    // nearest to it.
    const std::size_t brace = configuration->braces.front();
    auto cost = [&](std::size_t at) {
      const bool outside = at < begin || at >= configuration->end;
      return std::pair(outside, at > brace ? at - brace : brace - at);
    };
    std::stable_sort(spaces.begin(), spaces.end(),
                     [&](std::size_t a, std::size_t b) { return cost(a) < cost(b); });
    const std::vector<std::size_t> dropped(spaces.begin(),
                                           spaces.begin() + static_cast<std::ptrdiff_t>(needed));
    std::string edited;
    edited.reserve(current.size());
    std::size_t nextBrace = 0;
    for (std::size_t i = 0; i < current.size(); ++i) {
      if (nextBrace < configuration->braces.size() && configuration->braces[nextBrace] == i) {
        edited += kDim3;
        ++nextBrace;
      }
      if (std::find(dropped.begin(), dropped.end(), i) == dropped.end()) edited += current[i];
    }
    rewritten = std::move(edited);
    launch = llvm::StringRef(*rewritten).find("<<<", begin);
  }
  return rewritten;
}

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
launchConfigRewritingFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> base) {
  return llvm::makeIntrusiveRefCnt<LaunchConfigFileSystem>(std::move(base));
}

} // namespace streamrace::analyzer
