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

// A process driving several devices has each named by its CUDA ordinal, whatever order it first
// used them in; a process of one device, and a rank whose device no trace said, keep their rank.
TEST(RankNames, OneProcessNamesItsDevices) {
  const RankNames names({{0, {7, 0, 1}}, {1, {7, 0, 0}}});
  EXPECT_EQ(names.name(0), "device 1");
  EXPECT_EQ(names.name(1), "device 0");
  EXPECT_EQ(names.names(std::vector<RankId>{0, 1}), "devices 0,1");
  EXPECT_EQ(names.names(std::vector<RankId>{0}), "device 1");
  EXPECT_EQ(names.name(5), "rank 5");
}

TEST(RankNames, SeveralProcessesNameTheProcessRankAndTheDevice) {
  const RankNames names({{2, {1, 2, 0}}, {3, {1, 2, 1}}, {0, {0, 0, 0}}});
  EXPECT_EQ(names.name(3), "rank 2 device 1");
  EXPECT_EQ(names.name(0), "rank 0");
  EXPECT_EQ(names.names(std::vector<RankId>{0, 3}), "rank 0, rank 2 device 1");
}

TEST(RankNames, ProcessesOfOneDeviceKeepTheirRanks) {
  const RankNames names({{0, {0, 0, 0}}, {1, {1, 1, 0}}});
  EXPECT_EQ(names.name(1), "rank 1");
  EXPECT_EQ(names.names(std::vector<RankId>{0, 1}), "ranks 0,1");
  EXPECT_EQ(RankNames(std::map<RankId, RankIdentity>{}).names(std::vector<RankId>{0, 1, 2}),
            "ranks 0-2");
}

} // namespace
} // namespace streamrace
