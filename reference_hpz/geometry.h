// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Sharding arithmetic of ZeRO-3 and hpZ (reference_hpz/README.md, "Geometry"): a flat parameter of
// `numel` values is padded to a multiple of the world size; the primary shard splits it over the
// world, the secondary shard over the ranks of one node.
#pragma once

#include <cstddef>

namespace hpz {

struct ShardGeometry {
  std::size_t numel = 0;
  std::size_t aligned = 0;
  std::size_t primaryShard = 0;
  std::size_t secondaryShard = 0;

  static ShardGeometry of(std::size_t numel, int worldSize, int ranksPerNode) {
    const auto world = static_cast<std::size_t>(worldSize);
    ShardGeometry geometry;
    geometry.numel = numel;
    geometry.aligned = numel + (world - numel % world) % world;
    geometry.primaryShard = geometry.aligned / world;
    geometry.secondaryShard = geometry.aligned / static_cast<std::size_t>(ranksPerNode);
    return geometry;
  }
};

// A dense layer's weights and bias live in one flat parameter: weights row-major
// [outFeatures][inFeatures], then the outFeatures biases.
struct DenseShape {
  int inFeatures = 0;
  int outFeatures = 0;

  std::size_t parameterCount() const {
    return static_cast<std::size_t>(outFeatures) * static_cast<std::size_t>(inFeatures + 1);
  }
};

} // namespace hpz
