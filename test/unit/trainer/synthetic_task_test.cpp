// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "synthetic_task.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hpz {
namespace {

TEST(SyntheticTask, NoLayerDividesAcrossFourRanks) {
  for (const DenseShape& shape : modelShapes()) {
    EXPECT_NE(shape.parameterCount() % 4, 0u) << shape.inFeatures << "->" << shape.outFeatures;
  }
}

TEST(SyntheticTask, LayersChain) {
  const std::vector<DenseShape> shapes = modelShapes();
  for (std::size_t index = 1; index < shapes.size(); ++index) {
    EXPECT_EQ(shapes[index].inFeatures, shapes[index - 1].outFeatures);
  }
}

TEST(SyntheticTask, SameSeedSameBits) {
  const DenseShape shape{37, 61};
  EXPECT_EQ(initialParameters(shape, 5, 0), initialParameters(shape, 5, 0));
  EXPECT_NE(initialParameters(shape, 5, 0), initialParameters(shape, 6, 0));
  EXPECT_NE(initialParameters(shape, 5, 0), initialParameters(shape, 5, 1));
  const Samples first = rankSamples(5, 1, 8, 37, 3);
  const Samples again = rankSamples(5, 1, 8, 37, 3);
  EXPECT_EQ(first.inputs, again.inputs);
  EXPECT_EQ(first.targets, again.targets);
  EXPECT_NE(first.inputs, rankSamples(5, 2, 8, 37, 3).inputs);
}

TEST(SyntheticTask, BiasesStartAtZeroAndWeightsInTheirBound) {
  const DenseShape shape{13, 3};
  const std::vector<float> parameters = initialParameters(shape, 1, 3);
  const float bound = std::sqrt(6.0f / 16.0f);
  for (std::size_t index = 0; index < 39; ++index) {
    EXPECT_LE(std::abs(parameters[index]), bound);
  }
  for (std::size_t index = 39; index < parameters.size(); ++index) {
    EXPECT_EQ(parameters[index], 0.0f);
  }
}

} // namespace
} // namespace hpz
