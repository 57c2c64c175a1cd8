// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "geometry.h"

#include <gtest/gtest.h>

namespace hpz {
namespace {

TEST(ShardGeometry, PadsToAMultipleOfTheWorldSize) {
  const ShardGeometry geometry = ShardGeometry::of(2318, 4, 2);
  EXPECT_EQ(geometry.aligned, 2320u);
  EXPECT_EQ(geometry.primaryShard, 580u);
  EXPECT_EQ(geometry.secondaryShard, 1160u);
}

TEST(ShardGeometry, AddsNoPaddingWhenTheSizeDivides) {
  const ShardGeometry geometry = ShardGeometry::of(16, 4, 2);
  EXPECT_EQ(geometry.aligned, 16u);
  EXPECT_EQ(geometry.primaryShard, 4u);
  EXPECT_EQ(geometry.secondaryShard, 8u);
}

TEST(ShardGeometry, ParameterSmallerThanTheWorldStillGetsOneValuePerRank) {
  const ShardGeometry geometry = ShardGeometry::of(1, 8, 4);
  EXPECT_EQ(geometry.aligned, 8u);
  EXPECT_EQ(geometry.primaryShard, 1u);
  EXPECT_EQ(geometry.secondaryShard, 2u);
}

TEST(DenseShape, CountsWeightsAndBiases) {
  EXPECT_EQ((DenseShape{37, 61}.parameterCount()), 37u * 61u + 61u);
}

} // namespace
} // namespace hpz
