// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "link_model.h"

#include <gtest/gtest.h>

#include <vector>

namespace streamrace::emu::nccl {
namespace {

// Two nodes of two GPUs: the ring 0->1->2->3->0 has two links inside nodes and two across.
const std::vector<int> kTwoByTwo{0, 0, 1, 1};

TEST(LinkModel, AllGatherSendsNMinusOneBlocksOverEachRingLink) {
  const LinkParameters parameters;
  const LinkTraffic rank0 =
      collectiveTraffic(parameters, CollectiveKind::AllGather, 1000, 0, -1, kTwoByTwo);
  EXPECT_EQ(rank0.intraNodeBytes, 3000u);
  EXPECT_EQ(rank0.interNodeBytes, 0u);
  const LinkTraffic rank1 =
      collectiveTraffic(parameters, CollectiveKind::AllGather, 1000, 1, -1, kTwoByTwo);
  EXPECT_EQ(rank1.intraNodeBytes, 0u);
  EXPECT_EQ(rank1.interNodeBytes, 3000u);
  // The inter-node links pace the ring: 3 steps of latency plus 3000 bytes at 12.5 Gbit/s.
  EXPECT_NEAR(rank0.seconds, 3 * 5e-6 + 3000 * 8 / 12.5e9, 1e-12);
}

TEST(LinkModel, AllReduceIsReduceScatterPlusAllGather) {
  const LinkTraffic traffic =
      collectiveTraffic(LinkParameters{}, CollectiveKind::AllReduce, 4000, 3, -1, kTwoByTwo);
  EXPECT_EQ(traffic.interNodeBytes, 2u * 3 * 4000 / 4);
}

TEST(LinkModel, BroadcastChainSkipsTheRootsPredecessor) {
  const LinkParameters parameters;
  EXPECT_EQ(
      collectiveTraffic(parameters, CollectiveKind::Broadcast, 100, 0, 1, kTwoByTwo).intraNodeBytes,
      0u);
  EXPECT_EQ(
      collectiveTraffic(parameters, CollectiveKind::Broadcast, 100, 1, 1, kTwoByTwo).interNodeBytes,
      100u);
}

TEST(LinkModel, AlltoAllGoesDirectlyToEveryPeer) {
  const LinkTraffic traffic =
      collectiveTraffic(LinkParameters{}, CollectiveKind::AllToAll, 10, 0, -1, kTwoByTwo);
  EXPECT_EQ(traffic.intraNodeBytes, 10u);
  EXPECT_EQ(traffic.interNodeBytes, 20u);
}

TEST(LinkModel, SingleNodeUsesIntraNodeLinks) {
  const LinkTraffic traffic = pointToPointTraffic(LinkParameters{}, 1200, 0, 0);
  EXPECT_EQ(traffic.intraNodeBytes, 1200u);
  EXPECT_NEAR(traffic.seconds, 2e-6 + 1200 * 8 / 1200e9, 1e-12);
}

} // namespace
} // namespace streamrace::emu::nccl
