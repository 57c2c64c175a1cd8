// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "fix_its.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
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

// The innermost loop `stmt` is inside, or null.
const clang::Stmt* enclosingLoop(const clang::Stmt* stmt, const clang::ParentMap& parents) {
  for (const clang::Stmt* current = parents.getParent(const_cast<clang::Stmt*>(stmt)); current;
       current = parents.getParent(const_cast<clang::Stmt*>(current)))
    if (llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt, clang::CXXForRangeStmt>(current))
      return current;
  return nullptr;
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
  // A block, or a loop or branch whose body is one, ends at its brace; a declaration at its own
  // semicolon; an expression before the semicolon that follows it.
  clang::Token last;
  if (!clang::Lexer::getRawToken(end, last, sources, context.getLangOpts()) &&
      last.isOneOf(clang::tok::r_brace, clang::tok::semi))
    return clang::Lexer::getLocForEndOfToken(end, 0, sources, context.getLangOpts());
  return clang::Lexer::findLocationAfterToken(end, clang::tok::semi, sources, context.getLangOpts(),
                                              false);
}

std::vector<clang::FixItHint> orderStreamsFix(const clang::Stmt* first, const clang::Stmt* second,
                                              llvm::StringRef producerStream,
                                              llvm::StringRef consumerStream,
                                              const clang::ParentMap& parents,
                                              const clang::ASTContext& context, bool hostMayWait) {
  // A destructor run where a block ends comes after every statement of the block.
  if (!isUsableStreamText(producerStream) || llvm::isa<clang::CompoundStmt>(second)) return {};
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
  const bool eventUsable = common.first && common.first != common.second && waitPoint.isValid() &&
                           isUsableStreamText(consumerStream);
  const clang::SourceLocation afterProducer =
      eventUsable ? locationAfterStatement(common.first, context) : clang::SourceLocation();
  if (afterProducer.isValid()) {
    // Named after the producing statement: findings that share it share one event, and their
    // identical record insertions merge.
    const std::string event =
        "streamrace_ready_" +
        std::to_string(sources.getExpansionLineNumber(common.first->getBeginLoc()));
    const std::string producerIndent = indentationOf(common.first, context);
    const std::string waitIndent = indentationOf(common.second, context);
    const std::string create = "cudaEvent_t " + event + ";\n";
    const std::string createWithFlags =
        "cudaEventCreateWithFlags(&" + event + ", cudaEventDisableTiming);";
    const std::string record = "cudaEventRecord(" + event + ", " + producerStream.str() + ");";
    const std::string wait = "cudaStreamWaitEvent(" + consumerStream.str() + ", " + event + ", 0);";
    if (sources.isBeforeInTranslationUnit(common.first->getBeginLoc(),
                                          common.second->getBeginLoc()))
      return {clang::FixItHint::CreateInsertion(
                  afterProducer, "\n" + producerIndent + create + producerIndent + createWithFlags +
                                     "\n" + producerIndent + record),
              clang::FixItHint::CreateInsertion(waitPoint, wait + "\n" + waitIndent +
                                                               "cudaEventDestroy(" + event +
                                                               ");\n" + waitIndent)};
    // Carried around a loop: iteration i + 1's consumer waits for iteration i's producer.
    const PlacedStatement loop = place(enclosingLoop(common.first, parents), parents);
    const clang::SourceLocation loopBegin =
        loop.statement ? statementBegin(loop.statement, context) : clang::SourceLocation();
    const clang::SourceLocation afterLoop =
        loop.statement ? locationAfterStatement(loop.statement, context) : clang::SourceLocation();
    if (loopBegin.isValid() && afterLoop.isValid()) {
      const std::string loopIndent = indentationOf(loop.statement, context);
      return {clang::FixItHint::CreateInsertion(loopBegin, create + loopIndent + createWithFlags +
                                                               "\n" + loopIndent),
              clang::FixItHint::CreateInsertion(waitPoint, wait + "\n" + waitIndent),
              clang::FixItHint::CreateInsertion(afterProducer, "\n" + producerIndent + record),
              clang::FixItHint::CreateInsertion(afterLoop, "\n" + loopIndent + "cudaEventDestroy(" +
                                                               event + ");")};
    }
  }
  if (!hostMayWait) return {};
  return {clang::FixItHint::CreateInsertion(
      consumerBegin, "cudaStreamSynchronize(" + producerStream.str() + ");\n" + indent)};
}

std::vector<clang::FixItHint> synchronizeBeforeFix(const clang::Stmt* site, llvm::StringRef stream,
                                                   const clang::ParentMap& parents,
                                                   const clang::ASTContext& context) {
  if (!isUsableStreamText(stream) || llvm::isa<clang::CompoundStmt>(site)) return {};
  const clang::Stmt* statement = enclosingStatement(site, parents);
  if (!statement) return {};
  const clang::SourceLocation begin = statementBegin(statement, context);
  if (begin.isInvalid()) return {};
  return {clang::FixItHint::CreateInsertion(begin, "cudaStreamSynchronize(" + stream.str() +
                                                       ");\n" + indentationOf(statement, context))};
}

} // namespace streamrace::analyzer
