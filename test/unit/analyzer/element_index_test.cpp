// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Element keys compared and rewritten without an AST: "i@A" and "j@B" stand for two variables as
// variableKey spells them.
#include "element_index.h"

#include <gtest/gtest.h>

namespace streamrace::analyzer {
namespace {

TEST(ElementIndex, MirrorsAreApartFromTheVariableWhenNoIntegerMakesThemMeet) {
  EXPECT_FALSE(mayAlias("b[i@A]", "b[1-i@A]"));   // i == 1 - i has no integer solution
  EXPECT_TRUE(mayAlias("b[i@A+1]", "b[1-i@A]"));  // both 1 at i = 0
  EXPECT_FALSE(mayAlias("b[1-i@A]", "b[2-i@A]")); // two constants minus one variable
  EXPECT_TRUE(mayAlias("b[1-i@A]", "b[1-i@A]"));
  EXPECT_TRUE(mayAlias("b[1-i@A]", "b[3]"));
  EXPECT_TRUE(mayAlias("b[1-i@A]", "b[i@A-*]"));
}

TEST(ElementIndex, HandlesAtTwoVariablesMayBeOne) {
  EXPECT_FALSE(mayAlias("b[i@A]", "b[j@B]"));
  EXPECT_TRUE(mayBeSameHandle("s[i@A]", "s[j@B]"));
  EXPECT_TRUE(mayBeSameHandle("s[i@A]", "s[*]"));
  EXPECT_TRUE(mayBeSameHandle("s[i@A]", "s[i@A]"));
  EXPECT_FALSE(mayBeSameHandle("s[i@A]", "s[i@A+1]"));
  EXPECT_FALSE(mayBeSameHandle("s[i@A]", "s[1-i@A]"));
  EXPECT_FALSE(mayBeSameHandle("s[0]", "s[1]"));
  EXPECT_TRUE(mayBeSameHandle("s[0]", "s[i@A]"));
}

TEST(ElementIndex, MirrorsFollowTheirVariable) {
  // After ++i, the element 1 - i was is 2 - i; farther, it is one of the far ones.
  EXPECT_EQ(shiftIndices("b[1-i@A]", "i@A", 1), "b[2-i@A]");
  EXPECT_EQ(shiftIndices("b[2-i@A]", "i@A", 1), "b[+*-i@A]");
  EXPECT_EQ(shiftIndices("b[+*-i@A]", "i@A", 1), "b[+*-i@A]");
  EXPECT_EQ(shiftIndices("b[+*-i@A]", "i@A", -1), "b[*]");
  EXPECT_FALSE(mayAlias("b[+*-i@A]", "b[1-i@A]"));
  EXPECT_EQ(forgetIndices("b[1-i@A]", "i@A"), "b[*]");
  EXPECT_EQ(collapseIndices("s[1-i@A]"), "s[*]");
}

TEST(ElementIndex, ArgumentsReplaceParametersThroughMirrors) {
  EXPECT_EQ(substituteIndices("b[1-p@C]", "p@C", "3"), "b[-2]");
  EXPECT_EQ(substituteIndices("b[1-p@C]", "p@C", "i@A+1"), "b[0-i@A]");
  EXPECT_EQ(substituteIndices("b[p@C]", "p@C", "1-i@A"), "b[1-i@A]");
  EXPECT_EQ(substituteIndices("b[1-p@C]", "p@C", "1-i@A"), "b[i@A]");
}

} // namespace
} // namespace streamrace::analyzer
