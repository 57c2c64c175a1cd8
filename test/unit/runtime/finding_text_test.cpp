// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Rank lists in the text report: runs of consecutive ranks as ranges, so that a finding seen on
// a thousand ranks is one short header.
#include "streamrace/report/finding_text.h"

#include <gtest/gtest.h>

#include <numeric>

namespace streamrace {
namespace {

std::string text_of(std::vector<RankId> ranks) {
  return ranks_text(ranks);
}

TEST(RanksText, OneRankIsNamed) {
  EXPECT_EQ(text_of({7}), "rank 7");
}

TEST(RanksText, TwoNeighboursStayAList) {
  EXPECT_EQ(text_of({0, 1}), "ranks 0,1");
  EXPECT_EQ(text_of({3, 9}), "ranks 3,9");
}

TEST(RanksText, RunsOfThreeOrMoreBecomeRanges) {
  EXPECT_EQ(text_of({0, 1, 2}), "ranks 0-2");
  EXPECT_EQ(text_of({0, 1, 2, 3, 5, 7, 8, 9}), "ranks 0-3,5,7-9");
  EXPECT_EQ(text_of({1, 2, 4, 5, 6, 10}), "ranks 1,2,4-6,10");
}

TEST(RanksText, AThousandRanksAreOneRange) {
  std::vector<RankId> ranks(1024);
  std::iota(ranks.begin(), ranks.end(), 0);
  EXPECT_EQ(text_of(ranks), "ranks 0-1023");
  ranks.erase(ranks.begin() + 512);
  EXPECT_EQ(text_of(ranks), "ranks 0-511,513-1023");
}

TEST(RanksText, TheLargestRankEndsARange) {
  EXPECT_EQ(text_of({4294967293u, 4294967294u, 4294967295u}), "ranks 4294967293-4294967295");
}

} // namespace
} // namespace streamrace
