// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A seeded regression task and the model's initial weights, generated on the host so every
// rank and every mode starts from the same bits.
#pragma once

#include "geometry.h"

#include <cstdint>
#include <vector>

namespace hpz {

// Layer widths, none of whose flat parameter counts is divisible by 4 ranks, so the padding of
// the shards is exercised: 37 -> 61 -> 29 -> 13 -> 3.
std::vector<DenseShape> modelShapes();

// Flat parameter of one layer (weights then zero biases), uniform in +-sqrt(6 / (in + out)).
std::vector<float> initialParameters(const DenseShape& shape, std::uint64_t seed, int layer);

struct Samples {
  int count = 0;
  std::vector<float> inputs;  // [count][inFeatures]
  std::vector<float> targets; // [count][outFeatures]
};

// The rank's slice of the data: inputs uniform in [-1, 1); targets from a fixed random
// teacher, sin(teacher x).
Samples rankSamples(std::uint64_t seed, int rank, int count, int inFeatures, int outFeatures);

} // namespace hpz
