// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "fix_its.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <string>

namespace streamrace::analyzer {
namespace {

struct PlacedStatement {
  const clang::Stmt* statement = nullptr;
  const clang::CompoundStmt* block = nullptr;
};

PlacedStatement place(const clang::Stmt* stmt, const clang::ParentMap& parents) {
  const clang::Stmt* current = stmt;
  while (current) {
    const clang::Stmt* parent = parents.getParent(const_cast<clang::Stmt*>(current));
    if (!parent) return {};
    if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(parent)) return {current, block};
    current = parent;
  }
  return {};
}

clang::SourceLocation statementBegin(const clang::Stmt* statement,
                                     const clang::ASTContext& context) {
  const clang::SourceLocation begin =
      context.getSourceManager().getExpansionLoc(statement->getBeginLoc());
  return begin.isFileID() ? begin : clang::SourceLocation();
}

// The whitespace a new line needs to line up with `statement`.
std::string indentationOf(const clang::Stmt* statement, const clang::ASTContext& context) {
  const clang::SourceManager& sources = context.getSourceManager();
  const unsigned column = sources.getExpansionColumnNumber(statement->getBeginLoc());
  return std::string(column > 0 ? column - 1 : 0, ' ');
}

// The statements of the innermost block holding both `first` and `second`: the one holding each.
struct CommonBlock {
  const clang::Stmt* first = nullptr;
  const clang::Stmt* second = nullptr;
};

std::vector<PlacedStatement> enclosingBlocks(const clang::Stmt* stmt,
                                             const clang::ParentMap& parents) {
  std::vector<PlacedStatement> chain;
  for (PlacedStatement placed = place(stmt, parents); placed.statement;
       placed = place(placed.block, parents))
    chain.push_back(placed);
  return chain;
}

CommonBlock commonBlock(const clang::Stmt* first, const clang::Stmt* second,
                        const clang::ParentMap& parents) {
  const std::vector<PlacedStatement> firstChain = enclosingBlocks(first, parents);
  for (const PlacedStatement& outer : enclosingBlocks(second, parents))
    for (const PlacedStatement& inner : firstChain)
      if (inner.block == outer.block) return {inner.statement, outer.statement};
  return {};
}

bool isUsableStreamText(llvm::StringRef text) {
  return !text.empty() && text.find_first_of("<*@") == llvm::StringRef::npos;
}

} // namespace

const clang::Stmt* enclosingStatement(const clang::Stmt* stmt, const clang::ParentMap& parents) {
  return place(stmt, parents).statement;
}

clang::SourceLocation locationAfterStatement(const clang::Stmt* statement,
                                             const clang::ASTContext& context) {
  const clang::SourceManager& sources = context.getSourceManager();
  const clang::SourceLocation end = sources.getExpansionRange(statement->getEndLoc()).getEnd();
  // A block, or a loop or branch whose body is one, ends at its brace, not at a semicolon.
  clang::Token last;
  if (!clang::Lexer::getRawToken(end, last, sources, context.getLangOpts()) &&
      last.is(clang::tok::r_brace))
    return clang::Lexer::getLocForEndOfToken(end, 0, sources, context.getLangOpts());
  return clang::Lexer::findLocationAfterToken(end, clang::tok::semi, sources, context.getLangOpts(),
                                              false);
}

std::vector<clang::FixItHint> orderStreamsFix(const clang::Stmt* first, const clang::Stmt* second,
                                              llvm::StringRef producerStream,
                                              llvm::StringRef consumerStream,
                                              const clang::ParentMap& parents,
                                              const clang::ASTContext& context) {
  if (!isUsableStreamText(producerStream)) return {};
  const PlacedStatement consumer = place(second, parents);
  if (!consumer.statement) return {};
  const clang::SourceLocation consumerBegin = statementBegin(consumer.statement, context);
  if (consumerBegin.isInvalid()) return {};
  const std::string indent = indentationOf(consumer.statement, context);
  const clang::SourceManager& sources = context.getSourceManager();
  // In a block enclosing both, the event is recorded once the producing statement (a loop, say)
  // is done and waited on before the consuming one starts: on every path to the wait, the event
  // is recorded after the producer's work.
  const CommonBlock common = commonBlock(first, second, parents);
  const clang::SourceLocation waitPoint =
      common.second ? statementBegin(common.second, context) : clang::SourceLocation();
  const bool eventFits =
      common.first && common.first != common.second && waitPoint.isValid() &&
      isUsableStreamText(consumerStream) &&
      sources.isBeforeInTranslationUnit(common.first->getBeginLoc(), common.second->getBeginLoc());
  if (eventFits) {
    const std::string waitIndent = indentationOf(common.second, context);
    const clang::SourceLocation afterProducer = locationAfterStatement(common.first, context);
    if (afterProducer.isValid()) {
      // Named after the producing statement: findings that share it share one event, and their
      // identical record insertions merge.
      const std::string event =
          "streamrace_ready_" +
          std::to_string(sources.getExpansionLineNumber(common.first->getBeginLoc()));
      const std::string producerIndent = indentationOf(common.first, context);
      std::string record = "\n" + producerIndent + "cudaEvent_t " + event + ";\n" + producerIndent +
                           "cudaEventCreateWithFlags(&" + event + ", cudaEventDisableTiming);\n" +
                           producerIndent + "cudaEventRecord(" + event + ", " +
                           producerStream.str() + ");";
      std::string wait = "cudaStreamWaitEvent(" + consumerStream.str() + ", " + event + ", 0);\n" +
                         waitIndent + "cudaEventDestroy(" + event + ");\n" + waitIndent;
      return {clang::FixItHint::CreateInsertion(afterProducer, record),
              clang::FixItHint::CreateInsertion(waitPoint, wait)};
    }
  }
  return {clang::FixItHint::CreateInsertion(
      consumerBegin, "cudaStreamSynchronize(" + producerStream.str() + ");\n" + indent)};
}

std::vector<clang::FixItHint> synchronizeBeforeFix(const clang::Stmt* site, llvm::StringRef stream,
                                                   const clang::ParentMap& parents,
                                                   const clang::ASTContext& context) {
  if (!isUsableStreamText(stream)) return {};
  const clang::Stmt* statement = enclosingStatement(site, parents);
  if (!statement) return {};
  const clang::SourceLocation begin = statementBegin(statement, context);
  if (begin.isInvalid()) return {};
  return {clang::FixItHint::CreateInsertion(begin, "cudaStreamSynchronize(" + stream.str() +
                                                       ");\n" + indentationOf(statement, context))};
}

} // namespace streamrace::analyzer
