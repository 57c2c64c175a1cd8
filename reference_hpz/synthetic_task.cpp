// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "synthetic_task.h"

#include <cmath>

namespace hpz {

namespace {

// Where (row, column) sits in a row-major matrix `width` columns wide, computed in std::size_t.
std::size_t flatIndex(int row, int width, int column = 0) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(width) +
         static_cast<std::size_t>(column);
}

// splitmix64: tiny, seedable, and the same on every platform.
class Random {
public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1) with 24 bits, exactly representable as float.
  float symmetric() {
    return static_cast<float>(static_cast<double>(next() >> 40) / 8388608.0 - 1.0);
  }

private:
  std::uint64_t state_;
};

std::uint64_t mix(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return Random(seed ^ (stream * 0x632BE59BD9B4E019ull) ^ (index << 17)).next();
}

} // namespace

std::vector<DenseShape> modelShapes() {
  return {{37, 61}, {61, 29}, {29, 13}, {13, 3}};
}

std::vector<float> initialParameters(const DenseShape& shape, std::uint64_t seed, int layer) {
  Random random(mix(seed, 1, static_cast<std::uint64_t>(layer)));
  const float bound = std::sqrt(6.0f / static_cast<float>(shape.inFeatures + shape.outFeatures));
  std::vector<float> parameters(shape.parameterCount(), 0.0f);
  const std::size_t weightCount =
      static_cast<std::size_t>(shape.outFeatures) * static_cast<std::size_t>(shape.inFeatures);
  for (std::size_t index = 0; index < weightCount; ++index) {
    parameters[index] = bound * random.symmetric();
  }
  return parameters;
}

Samples rankSamples(std::uint64_t seed, int rank, int count, int inFeatures, int outFeatures) {
  Random teacher(mix(seed, 2, 0));
  std::vector<float> teacherWeights(flatIndex(outFeatures, inFeatures));
  for (float& weight : teacherWeights) {
    weight = teacher.symmetric() * 0.5f;
  }
  Random data(mix(seed, 3, static_cast<std::uint64_t>(rank)));
  Samples samples;
  samples.count = count;
  samples.inputs.resize(flatIndex(count, inFeatures));
  samples.targets.resize(flatIndex(count, outFeatures));
  for (int sample = 0; sample < count; ++sample) {
    const float* input = &samples.inputs[flatIndex(sample, inFeatures)];
    for (int i = 0; i < inFeatures; ++i) {
      samples.inputs[flatIndex(sample, inFeatures, i)] = data.symmetric();
    }
    for (int o = 0; o < outFeatures; ++o) {
      double projection = 0.0;
      for (int i = 0; i < inFeatures; ++i) {
        projection += static_cast<double>(teacherWeights[flatIndex(o, inFeatures, i)]) *
                      static_cast<double>(input[i]);
      }
      samples.targets[flatIndex(sample, outFeatures, o)] = static_cast<float>(std::sin(projection));
    }
  }
  return samples;
}

} // namespace hpz
