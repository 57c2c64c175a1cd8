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
  if (llvm::isa<clang::CompoundStmt>(statement))
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
  const PlacedStatement producer = place(first, parents);
  const PlacedStatement consumer = place(second, parents);
  if (!consumer.statement) return {};
  const clang::SourceLocation consumerBegin = statementBegin(consumer.statement, context);
  if (consumerBegin.isInvalid()) return {};
  const std::string indent = indentationOf(consumer.statement, context);
  const clang::SourceManager& sources = context.getSourceManager();
  const bool eventFits = producer.statement && producer.block == consumer.block &&
                         producer.statement != consumer.statement &&
                         isUsableStreamText(consumerStream) &&
                         sources.isBeforeInTranslationUnit(producer.statement->getBeginLoc(),
                                                           consumer.statement->getBeginLoc());
  if (eventFits) {
    const clang::SourceLocation afterProducer = locationAfterStatement(producer.statement, context);
    if (afterProducer.isValid()) {
      // Named after the producing statement: findings that share it share one event, and their
      // identical record insertions merge.
      const std::string event =
          "streamrace_ready_" +
          std::to_string(sources.getExpansionLineNumber(producer.statement->getBeginLoc()));
      const std::string producerIndent = indentationOf(producer.statement, context);
      std::string record = "\n" + producerIndent + "cudaEvent_t " + event + ";\n" + producerIndent +
                           "cudaEventCreateWithFlags(&" + event + ", cudaEventDisableTiming);\n" +
                           producerIndent + "cudaEventRecord(" + event + ", " +
                           producerStream.str() + ");";
      std::string wait = "cudaStreamWaitEvent(" + consumerStream.str() + ", " + event + ", 0);\n" +
                         indent + "cudaEventDestroy(" + event + ");\n" + indent;
      return {clang::FixItHint::CreateInsertion(afterProducer, record),
              clang::FixItHint::CreateInsertion(consumerBegin, wait)};
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
