// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loop counters read from real ASTs: which variable counts, which way, and when the body runs
// at least once.
#include "loop_counter.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace streamrace::analyzer {
namespace {

// The loops and the local variables of `code`'s one function, in source order.
class Program : public clang::RecursiveASTVisitor<Program> {
public:
  explicit Program(const std::string& code)
      : unit_(clang::tooling::buildASTFromCodeWithArgs(code, {"-std=c++20"})) {
    TraverseDecl(unit_->getASTContext().getTranslationUnitDecl());
  }

  bool VisitForStmt(clang::ForStmt* loop) {
    loops.push_back(loop);
    return true;
  }
  bool VisitVarDecl(clang::VarDecl* var) {
    variables.push_back(var);
    return true;
  }
  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    if (function->hasBody()) body = function->getBody();
    return true;
  }

  const clang::ASTContext& context() const { return unit_->getASTContext(); }
  const clang::VarDecl* variable(llvm::StringRef name) const {
    for (const clang::VarDecl* var : variables)
      if (var->getName() == name) return var;
    return nullptr;
  }

  std::vector<const clang::ForStmt*> loops;
  std::vector<const clang::VarDecl*> variables;
  clang::Stmt* body = nullptr;

private:
  std::unique_ptr<clang::ASTUnit> unit_;
};

TEST(LoopCounter, CountsUpOrDownByAConstantStep) {
  const Program program("void f(int n) {\n"
                        "  for (int i = 0; i < n; ++i) {}\n"
                        "  for (int j = n - 1; j >= 0; j -= 2) {}\n"
                        "  for (int k = 0; k < n; k += n) {}\n"
                        "}\n");
  ASSERT_EQ(program.loops.size(), 3u);
  const std::optional<LoopCounter> up = loopCounter(*program.loops[0], program.context());
  ASSERT_TRUE(up);
  EXPECT_EQ(up->variable, program.variable("i"));
  EXPECT_EQ(up->direction, 1);
  const std::optional<LoopCounter> down = loopCounter(*program.loops[1], program.context());
  ASSERT_TRUE(down);
  EXPECT_EQ(down->variable, program.variable("j"));
  EXPECT_EQ(down->direction, -1);
  // A step that is not a constant gives no direction.
  EXPECT_FALSE(loopCounter(*program.loops[2], program.context()));
}

TEST(LoopCounter, TheFirstTestSaysWhenTheBodyRuns) {
  const Program program("void f(int n) {\n"
                        "  for (int i = 0; i < n; ++i) {}\n"
                        "  for (int i = 0; i < 4; ++i) {}\n"
                        "  for (int i = 0; i < 0; ++i) {}\n"
                        "  for (int i = 2; i <= n; ++i) {}\n"
                        "}\n");
  ASSERT_EQ(program.loops.size(), 4u);
  const std::optional<LoopEntry> overN = loopEntry(*program.loops[0], program.context());
  ASSERT_TRUE(overN);
  EXPECT_EQ(overN->variable, program.variable("n"));
  EXPECT_EQ(overN->threshold, 0);
  EXPECT_TRUE(overN->above);
  const std::optional<LoopEntry> always = loopEntry(*program.loops[1], program.context());
  ASSERT_TRUE(always);
  EXPECT_EQ(always->variable, nullptr);
  EXPECT_FALSE(loopEntry(*program.loops[2], program.context()));
  // 2 <= n: n above 1.
  const std::optional<LoopEntry> fromTwo = loopEntry(*program.loops[3], program.context());
  ASSERT_TRUE(fromTwo);
  EXPECT_EQ(fromTwo->variable, program.variable("n"));
  EXPECT_EQ(fromTwo->threshold, 1);
  EXPECT_TRUE(fromTwo->above);
}

TEST(LoopCounter, TheCounterMayStandOnEitherSideOfItsTest) {
  const Program program("void f(int n, int m) {\n"
                        "  for (int i = 0; n > i; ++i) {}\n"
                        "}\n");
  ASSERT_EQ(program.loops.size(), 1u);
  const auto* comparison = llvm::cast<clang::BinaryOperator>(program.loops[0]->getCond());
  const std::optional<CounterTest> test = counterTest(*comparison, program.variable("i"));
  ASSERT_TRUE(test);
  EXPECT_EQ(test->op, clang::BO_LT);
  EXPECT_EQ(variableOf(test->bound), program.variable("n"));
  // Read with n as the counter, the same test is n > i.
  const std::optional<CounterTest> mirrored = counterTest(*comparison, program.variable("n"));
  ASSERT_TRUE(mirrored);
  EXPECT_EQ(mirrored->op, clang::BO_GT);
  EXPECT_EQ(variableOf(mirrored->bound), program.variable("i"));
  EXPECT_FALSE(counterTest(*comparison, program.variable("m")));
}

TEST(LoopCounter, NeighboursOfTheCounterAreIndicesAndCyclesAreNot) {
  const Program program("void f(int n, int b) {\n"
                        "  for (int dev = 0; dev < n; ++dev) {\n"
                        "    int before = dev - 1;\n"
                        "    int next = (dev + 1) % n;\n"
                        "    int parity = b % 2;\n"
                        "  }\n"
                        "}\n");
  ASSERT_NE(program.body, nullptr);
  const clang::ParentMap parents(program.body);
  auto neighbour = [&](const char* name) {
    return neighbourIndex(program.variable(name)->getInit(), parents, program.context());
  };
  EXPECT_NE(neighbour("before"), nullptr);
  EXPECT_NE(neighbour("next"), nullptr);
  EXPECT_EQ(neighbour("parity"), nullptr);
  EXPECT_TRUE(onlyReads(program.body, program.variable("b"), parents));
  EXPECT_FALSE(onlyReads(program.body, program.variable("dev"), parents));
}

} // namespace
} // namespace streamrace::analyzer
