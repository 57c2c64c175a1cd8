// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "ranks/rank_assignment.h"

#include <gtest/gtest.h>

namespace streamrace::tracer {
namespace {

constexpr ThreadId kMain = 1;
constexpr ThreadId kWorker = 2;

TEST(RankAssignment, OneDeviceKeepsTheProcessRank) {
  RankAssignment ranks(5);
  EXPECT_EQ(ranks.rank_of(kMain, SetDevice{3}), 5u);
  EXPECT_EQ(ranks.rank_of(kMain, Alloc{0x1000, 64}), 5u);
  EXPECT_EQ(ranks.rank_of(kWorker, SetDevice{3}), 5u);
  EXPECT_EQ(ranks.ranks(), std::vector<RankId>{5});
}

TEST(RankAssignment, SelectingDevicesIsNotUsingThem) {
  RankAssignment ranks(2);
  for (DeviceId device = 0; device < 4; ++device)
    EXPECT_EQ(ranks.rank_of(kMain, SetDevice{device}), 2u);
  EXPECT_EQ(ranks.rank_of(kMain, SetDevice{1}), 2u);
  EXPECT_EQ(ranks.rank_of(kMain, Free{0}), 2u); // cudaFree(0): context initialization
  EXPECT_EQ(ranks.rank_of(kMain, Alloc{0x1000, 64}), 2u);
  EXPECT_EQ(ranks.ranks(), std::vector<RankId>{2});
}

// Two processes under a launcher (WORLD_SIZE 2), each driving two devices: their ranks are two
// apart, so neither gives out a rank the other does.
TEST(RankAssignment, ProcessesUnderALauncherGiveOutRanksNoOtherProcessGives) {
  RankAssignment first(0, 2);
  RankAssignment second(1, 2);
  for (RankAssignment* process : {&first, &second})
    for (DeviceId device = 0; device < 2; ++device) {
      process->rank_of(kMain, SetDevice{device});
      process->rank_of(kMain, StreamCreate{0xa0 + static_cast<StreamHandle>(device)});
    }
  EXPECT_EQ(first.ranks(), (std::vector<RankId>{0, 2}));
  EXPECT_EQ(second.ranks(), (std::vector<RankId>{1, 3}));
}

TEST(RankAssignment, DevicesGetRanksInTheOrderTheyAreFirstUsed) {
  RankAssignment ranks(0);
  EXPECT_EQ(ranks.rank_of(kMain, SetDevice{0}), 0u);
  EXPECT_EQ(ranks.rank_of(kMain, StreamCreate{0xa0}), 0u);
  EXPECT_EQ(ranks.rank_of(kMain, SetDevice{1}), 0u); // not used yet
  EXPECT_EQ(ranks.rank_of(kMain, StreamCreate{0xa1}), 1u);
  EXPECT_EQ(ranks.rank_of(kMain, SetDevice{1}), 1u);
  EXPECT_EQ(ranks.rank_of(kMain, Alloc{0x2000, 64}), 1u);
  // Back on device 0, work on device 1's stream and memory still belongs to rank 1.
  EXPECT_EQ(ranks.rank_of(kMain, SetDevice{0}), 0u);
  EXPECT_EQ(ranks.rank_of(kMain, Copy{0xa1, 0x2000, 0x2000, 64}), 1u);
  EXPECT_EQ(ranks.rank_of(kMain, Free{0x2000}), 1u);
  EXPECT_EQ(ranks.rank_of(kMain, Copy{0xa0, 0x1000, 0x1000, 64}), 0u);
  EXPECT_EQ(ranks.ranks(), (std::vector<RankId>{0, 1}));
}

TEST(RankAssignment, CollectivesBelongToTheirCommunicatorsDevice) {
  RankAssignment ranks(0);
  CommInit first;
  first.comm = 0xc0;
  first.device = 0;
  CommInit second;
  second.comm = 0xc1;
  second.device = 1;
  EXPECT_EQ(ranks.rank_of(kMain, first), 0u);
  EXPECT_EQ(ranks.rank_of(kMain, second), 1u);
  Collective collective;
  collective.comm = 0xc1;
  EXPECT_EQ(ranks.rank_of(kMain, collective), 1u);
  EXPECT_EQ(ranks.rank_of(kMain, CommDestroy{0xc0}), 0u);
}

TEST(RankAssignment, DefaultStreamsAreTheCurrentDevices) {
  RankAssignment ranks(0);
  ranks.rank_of(kMain, SetDevice{0});
  ranks.rank_of(kWorker, SetDevice{1});
  EXPECT_EQ(ranks.rank_of(kMain, KernelLaunch{kLegacyStream, 0, {}}), 0u);
  EXPECT_EQ(ranks.rank_of(kWorker, KernelLaunch{kLegacyStream, 0, {}}), 1u);
}

} // namespace
} // namespace streamrace::tracer
