// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "options.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace hpz {
namespace {

std::string errorOf(const std::vector<std::string>& arguments) {
  try {
    parseOptions(arguments);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "no error";
}

TEST(Options, DefaultsToFiftyZero3Steps) {
  const Options options = parseOptions({});
  EXPECT_EQ(options.mode, Mode::Zero3);
  EXPECT_EQ(options.steps, 50);
  EXPECT_FALSE(options.poisonSecondaryShards);
}

TEST(Options, ReadsEveryOption) {
  const Options options =
      parseOptions({"--mode", "hpz-fix-event", "--steps", "7", "--seed", "42", "--loss-csv",
                    "l.csv", "--cost-csv", "c.csv", "--poison", "--qwz", "--qgz"});
  EXPECT_EQ(options.mode, Mode::HpzFixEvent);
  EXPECT_EQ(options.steps, 7);
  EXPECT_EQ(options.seed, 42u);
  EXPECT_EQ(options.lossCsvPath, "l.csv");
  EXPECT_EQ(options.costCsvPath, "c.csv");
  EXPECT_TRUE(options.poisonSecondaryShards);
  EXPECT_TRUE(options.quantizeWeights);
  EXPECT_TRUE(options.quantizeGradients);
}

TEST(Options, ModesRoundTripThroughTheirNames) {
  for (Mode mode : {Mode::Zero3, Mode::HpzBuggy, Mode::HpzFixHostSync, Mode::HpzFixEvent}) {
    EXPECT_EQ(parseOptions({"--mode", modeName(mode)}).mode, mode);
  }
  EXPECT_FALSE(usesSecondaryShards(Mode::Zero3));
  EXPECT_TRUE(usesSecondaryShards(Mode::HpzBuggy));
}

TEST(Options, RejectionsNameTheArgument) {
  EXPECT_EQ(errorOf({"--mode", "hpz"}),
            "--mode expects zero3, hpz-buggy, hpz-fix-hostsync or hpz-fix-event, got 'hpz'");
  EXPECT_EQ(errorOf({"--steps", "-3"}), "--steps expects a non-negative integer, got '-3'");
  EXPECT_EQ(errorOf({"--steps", "0"}), "--steps expects 1..1000000");
  EXPECT_EQ(errorOf({"--seed"}), "--seed expects a value");
  EXPECT_EQ(errorOf({"--fp16"}), "unknown argument '--fp16'");
}

} // namespace
} // namespace hpz
