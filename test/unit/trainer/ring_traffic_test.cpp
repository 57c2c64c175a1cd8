// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "ring_traffic.h"

#include <gtest/gtest.h>

namespace hpz {
namespace {

TEST(RingTraffic, WorldRingOfTwoNodesCrossesTwiceAndStaysInsideTwice) {
  RingTraffic traffic;
  traffic.addRingCollective({0, 0, 1, 1}, 100);
  // Each of 4 ranks sends 3 chunks; links 1->2 and 3->0 cross nodes.
  EXPECT_EQ(traffic.acrossNodes, 600u);
  EXPECT_EQ(traffic.insideNodes, 600u);
}

TEST(RingTraffic, IntraNodeRingNeverCrosses) {
  RingTraffic traffic;
  traffic.addRingCollective({1, 1}, 100);
  EXPECT_EQ(traffic.acrossNodes, 0u);
  EXPECT_EQ(traffic.insideNodes, 200u);
}

TEST(RingTraffic, ASingleRankSendsNothing) {
  RingTraffic traffic;
  traffic.addRingCollective({0}, 100);
  EXPECT_EQ(traffic.acrossNodes + traffic.insideNodes, 0u);
}

TEST(RingTraffic, AllToAllSendsToEveryPeerDirectly) {
  RingTraffic traffic;
  traffic.addAllToAll({0, 0, 1, 1}, 10);
  // Each rank: one peer on its node, two on the other.
  EXPECT_EQ(traffic.insideNodes, 40u);
  EXPECT_EQ(traffic.acrossNodes, 80u);
}

TEST(RingTraffic, Accumulates) {
  RingTraffic total;
  RingTraffic step;
  step.addRingCollective({0, 1}, 10);
  total += step;
  total += step;
  EXPECT_EQ(total.acrossNodes, 40u);
}

} // namespace
} // namespace hpz
