// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sync_advice.h"

#include "fix_its.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <tuple>

namespace streamrace::analyzer {

namespace {

using FindingIdentity = std::tuple<std::string, unsigned, std::string>;

FindingIdentity identityOf(const Finding& finding) {
  return {finding.check, finding.location.getRawEncoding(), finding.message};
}

bool insertsText(const Finding& finding, llvm::StringRef text) {
  return std::any_of(finding.fixes.begin(), finding.fixes.end(), [&](const clang::FixItHint& fix) {
    return llvm::StringRef(fix.CodeToInsert).contains(text);
  });
}

// A race an event edge orders: between two streams, with the record/wait pair as its fix, not
// a synchronization of the host (fix_its.h gives one only where no event fits).
bool orderedByAnEventEdge(const Finding& finding) {
  return finding.check == kCrossStreamCheck && insertsText(finding, "cudaStreamWaitEvent") &&
         !insertsText(finding, "Synchronize(");
}

std::string calleeName(const clang::CallExpr& call) {
  if (const clang::FunctionDecl* callee = call.getDirectCallee()) return callee->getNameAsString();
  return "the synchronize";
}

// `range` with the blanks before it on its first line and the line's end after it, when nothing
// else shares those lines: the deletion leaves no empty line behind.
clang::CharSourceRange wholeLines(clang::CharSourceRange range,
                                  const clang::SourceManager& sources) {
  const auto [file, begin] = sources.getDecomposedLoc(range.getBegin());
  if (sources.getFileID(range.getEnd()) != file) return range;
  const unsigned end = sources.getFileOffset(range.getEnd());
  const llvm::StringRef text = sources.getBufferData(file);
  const std::size_t lineStart = text.rfind('\n', begin == 0 ? 0 : begin - 1);
  const std::size_t first = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
  const std::size_t lineEnd = text.find('\n', end);
  if (first > begin || lineEnd == llvm::StringRef::npos ||
      !text.slice(first, begin).trim().empty() || !text.slice(end, lineEnd).trim().empty())
    return range;
  const clang::SourceLocation fileStart = sources.getLocForStartOfFile(file);
  return clang::CharSourceRange::getCharRange(fileStart.getLocWithOffset(first),
                                              fileStart.getLocWithOffset(lineEnd + 1));
}

// Deleting the wait: its whole statement, when that statement is the call, or one macro
// invocation whose only argument is the call (`CUDA_CHECK(cudaStreamSynchronize(s));`). A wait
// whose value decides something is left for the reader to take out.
std::optional<clang::FixItHint> removalOf(const clang::CallExpr& call,
                                          const clang::FunctionDecl& function,
                                          clang::ASTContext& context) {
  if (!function.getBody()) return std::nullopt;
  const clang::ParentMap parents(function.getBody());
  const clang::Stmt* statement = enclosingStatement(&call, parents);
  if (!statement) return std::nullopt;
  const clang::SourceManager& sources = context.getSourceManager();
  const clang::LangOptions& language = context.getLangOpts();
  const clang::CharSourceRange statementRange =
      sources.getExpansionRange(statement->getSourceRange());
  const clang::Expr* expression = llvm::dyn_cast<clang::Expr>(statement);
  bool removable = expression && expression->IgnoreParenImpCasts() == &call;
  if (!removable && statement->getBeginLoc().isMacroID()) {
    const llvm::StringRef text = clang::Lexer::getSourceText(statementRange, sources, language);
    const llvm::StringRef callText = clang::Lexer::getSourceText(
        clang::CharSourceRange::getTokenRange(call.getSourceRange()), sources, language);
    llvm::StringRef inner = text.trim();
    removable = !callText.empty() && inner.consume_back(")") &&
                inner.drop_until([](char c) { return c == '('; }).drop_front().trim() == callText;
  }
  if (!removable) return std::nullopt;
  const clang::SourceLocation end = locationAfterStatement(statement, context);
  if (end.isInvalid()) return std::nullopt;
  return clang::FixItHint::CreateRemoval(
      wholeLines(clang::CharSourceRange::getCharRange(statementRange.getBegin(), end), sources));
}

const clang::FunctionDecl* enclosingFunction(const clang::CallExpr& call,
                                             clang::ASTContext& context) {
  clang::DynTypedNodeList parents = context.getParents(call);
  while (!parents.empty()) {
    if (const auto* function = parents[0].get<clang::FunctionDecl>()) return function;
    parents = context.getParents(parents[0]);
  }
  return nullptr;
}

} // namespace

std::vector<Finding> adviseHostWaits(const HostFacts& host, const std::vector<Finding>& findings,
                                     const AnalyzeWithout& analyzeWithout,
                                     clang::ASTContext& context) {
  const clang::SourceManager& sources = context.getSourceManager();
  std::set<FindingIdentity> known;
  for (const Finding& finding : findings)
    known.insert(identityOf(finding));
  std::set<std::pair<clang::FileID, unsigned>> waitingLines;
  for (const clang::CallExpr* call : host.waitingCalls) {
    const clang::SourceLocation at = sources.getExpansionLoc(call->getBeginLoc());
    waitingLines.emplace(sources.getFileID(at), sources.getExpansionLineNumber(at));
  }
  auto hostWaitsThere = [&](const Finding& race) {
    const clang::SourceLocation at = sources.getExpansionLoc(race.location);
    return waitingLines.contains({sources.getFileID(at), sources.getExpansionLineNumber(at)});
  };
  std::vector<Finding> advice;
  for (const auto& [call, site] : host.waits) {
    if (!site.completedWork || site.completedHostMemory ||
        std::any_of(site.unknownMemory.begin(), site.unknownMemory.end(),
                    [&](const std::string& buffer) { return host.touched.contains(buffer); }) ||
        !sources.isInMainFile(sources.getExpansionLoc(call->getBeginLoc())))
      continue;
    std::vector<Finding> unordered;
    for (Finding& finding : analyzeWithout(*call, site.roots))
      if (!known.contains(identityOf(finding))) unordered.push_back(std::move(finding));
    if (unordered.empty() ||
        !std::all_of(unordered.begin(), unordered.end(), orderedByAnEventEdge) ||
        std::all_of(unordered.begin(), unordered.end(), hostWaitsThere))
      continue;
    const std::string name = calleeName(*call);
    Finding entry;
    entry.check = kOverStrongSyncAdvice;
    entry.location = call->getBeginLoc();
    entry.message = "'" + name +
                    "' makes the host wait, but only work on other streams needs what it waits "
                    "for: an event edge orders " +
                    (unordered.size() == 1 ? std::string("that race")
                                           : std::to_string(unordered.size()) + " races") +
                    " without blocking the host";
    if (const clang::FunctionDecl* function = enclosingFunction(*call, context))
      if (std::optional<clang::FixItHint> removal = removalOf(*call, *function, context))
        entry.fixes.push_back(std::move(*removal));
    for (const Finding& race : unordered) {
      entry.notes.push_back({race.location, "without it: " + race.message});
      entry.notes.insert(entry.notes.end(), race.notes.begin(), race.notes.end());
      for (const clang::FixItHint& fix : race.fixes)
        if (std::none_of(entry.fixes.begin(), entry.fixes.end(), [&](const clang::FixItHint& kept) {
              return kept.RemoveRange.getAsRange() == fix.RemoveRange.getAsRange() &&
                     kept.CodeToInsert == fix.CodeToInsert;
            }))
          entry.fixes.push_back(fix);
    }
    advice.push_back(std::move(entry));
  }
  std::sort(advice.begin(), advice.end(), [&](const Finding& a, const Finding& b) {
    return sources.isBeforeInTranslationUnit(a.location, b.location);
  });
  return advice;
}

} // namespace streamrace::analyzer
