// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/options.h"

#include <gtest/gtest.h>

namespace streamrace {
namespace {

TEST(Options, ParsesKeyValuePairs) {
  Options options;
  EXPECT_EQ(parse_options("strict_free=1:history_limit_mb=64 cross_rank_ordering=false", options),
            "");
  EXPECT_TRUE(options.strict_free);
  EXPECT_EQ(options.history_limit_mb, 64u);
  EXPECT_FALSE(options.cross_rank_ordering);
}

TEST(Options, NamesTheUnknownKey) {
  Options options;
  EXPECT_EQ(parse_options("strict_fre=1", options),
            "unknown option 'strict_fre' (see the options list in --help)");
}

TEST(Options, NamesTheBadValue) {
  Options options;
  EXPECT_EQ(parse_options("history_limit_mb=lots", options),
            "option 'history_limit_mb' expects a uint, got 'lots'");
  EXPECT_EQ(parse_options("strict_free", options),
            "option 'strict_free' has no value (expected key=value)");
}

TEST(Options, HelpListsEveryOption) {
  const std::string help = options_help();
  for (const char* name : {"strict_pageable_copy", "strict_free", "cross_rank_ordering",
                           "history_limit_mb", "max_expanded_rows"})
    EXPECT_NE(help.find(name), std::string::npos) << name;
}

} // namespace
} // namespace streamrace
