// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Command line of hpz_train.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hpz {

enum class Mode { Zero3, HpzBuggy, HpzFixHostSync, HpzFixEvent };

struct Options {
  Mode mode = Mode::Zero3;
  int steps = 50;
  std::uint64_t seed = 1;
  std::string lossCsvPath;
  std::string costCsvPath;
  bool poisonSecondaryShards = false;
  bool quantizeWeights = false;
  bool quantizeGradients = false;
  bool showHelp = false;
};

const char* modeName(Mode mode);
constexpr bool usesSecondaryShards(Mode mode) {
  return mode != Mode::Zero3;
}

// Throws std::invalid_argument with a message naming the bad argument.
Options parseOptions(const std::vector<std::string>& arguments);

std::string usage();

} // namespace hpz
