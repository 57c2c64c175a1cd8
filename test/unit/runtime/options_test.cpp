// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/options.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

namespace streamrace {
namespace {

TEST(Settings, ParsesKeyValuePairsIntoTheirParts) {
  Settings settings;
  EXPECT_EQ(parse_settings("strict_free=1:history_limit_mb=64 cross_rank_ordering=false,"
                           "halt_on_error=yes\tsuppressions=a=b.supp\nlauncher=mpirun",
                           settings),
            "");
  EXPECT_TRUE(settings.engine.strict_free);
  EXPECT_EQ(settings.engine.history_limit_mb, 64u);
  EXPECT_FALSE(settings.engine.cross_rank_ordering);
  EXPECT_TRUE(settings.tracer.halt_on_error);
  EXPECT_EQ(settings.report.suppressions, "a=b.supp"); // the first '=' ends the key
  EXPECT_EQ(settings.run.launcher, "mpirun");
}

TEST(Settings, QuotedValuesHoldSeparators) {
  Settings settings;
  EXPECT_EQ(parse_settings("launcher='mpirun -np 8':symbolizer=\"/opt/a b/addr2line\"", settings),
            "");
  EXPECT_EQ(settings.run.launcher, "mpirun -np 8");
  EXPECT_EQ(settings.report.symbolizer, "/opt/a b/addr2line");
  EXPECT_EQ(parse_settings("launcher='mpirun", settings),
            "option 'launcher': the value's quote ' is never closed");
  EXPECT_EQ(parse_settings("launcher='a'b", settings),
            "option 'launcher': text right after the quoted value");
}

TEST(Settings, ALaterPairWins) {
  Settings settings;
  EXPECT_EQ(parse_settings("history_limit_mb=1:history_limit_mb=2", settings), "");
  EXPECT_EQ(settings.engine.history_limit_mb, 2u);
}

TEST(Settings, NamesTheUnknownKey) {
  Settings settings;
  EXPECT_EQ(parse_settings("strict_fre=1", settings),
            "unknown option 'strict_fre' (see the options list in --help)");
  EXPECT_EQ(parse_settings("=1", settings), "unknown option '' (see the options list in --help)");
}

TEST(Settings, NamesTheBadValue) {
  Settings settings;
  EXPECT_EQ(parse_settings("history_limit_mb=lots", settings),
            "option 'history_limit_mb' expects a uint, got 'lots'");
  EXPECT_EQ(parse_settings("strict_free", settings),
            "option 'strict_free' has no value (expected key=value)");
}

TEST(Settings, RefusesAValueOutsideTheRangeOfItsSetting) {
  Settings settings;
  for (const std::string value : {"6", "0", "1", "2097152"})
    EXPECT_EQ(parse_settings("ring_capacity=" + value, settings),
              "option 'ring_capacity' accepts a power of two from 2 to 1048576, got '" + value +
                  "'");
  EXPECT_EQ(parse_settings("overflow_capacity=0", settings),
            "option 'overflow_capacity' accepts at least 1, got '0'");
}

TEST(Settings, AcceptsTheEndsOfARange) {
  Settings settings;
  EXPECT_EQ(parse_settings("ring_capacity=2:overflow_capacity=1", settings), "");
  EXPECT_EQ(settings.tracer.ring_capacity, 2u);
  EXPECT_EQ(settings.tracer.overflow_capacity, 1u);
  EXPECT_EQ(parse_settings("ring_capacity=1048576", settings), "");
  EXPECT_EQ(settings.tracer.ring_capacity, 1048576u);
}

TEST(Settings, TheDefaultsAreInTheirRanges) {
  const Settings defaults;
  const std::string text =
      "ring_capacity=" + std::to_string(defaults.tracer.ring_capacity) +
      ":overflow_capacity=" + std::to_string(defaults.tracer.overflow_capacity);
  Settings settings;
  EXPECT_EQ(parse_settings(text, settings), "");
}

TEST(Settings, TheEnvironmentGivesOptionsThenAliases) {
  const std::map<std::string, std::string> environment{
      {"STREAMRACE_OPTIONS", "output_dir=from-options:strict_free=1"},
      {"STREAMRACE_OUTPUT_DIR", "from-alias"},
      {"STREAMRACE_SYMBOLIZER", "/opt/my symbolizer"}, // an alias's value is taken whole
      {"STREAMRACE_LAUNCHER", ""}};                    // an empty alias sets nothing
  const auto lookup = [&](const char* name) -> const char* {
    auto it = environment.find(name);
    return it == environment.end() ? nullptr : it->second.c_str();
  };
  Settings settings;
  settings.run.launcher = "kept";
  EXPECT_EQ(apply_environment(settings, lookup), "");
  EXPECT_TRUE(settings.engine.strict_free);
  EXPECT_EQ(settings.tracer.output_dir, "from-alias");
  EXPECT_EQ(settings.report.symbolizer, "/opt/my symbolizer");
  EXPECT_EQ(settings.run.launcher, "kept");
}

TEST(Settings, AnEnvironmentErrorNamesItsVariable) {
  Settings settings;
  EXPECT_EQ(apply_environment(settings,
                              [](const char* name) -> const char* {
                                return std::string_view(name) == "STREAMRACE_OPTIONS" ? "nope=1"
                                                                                      : nullptr;
                              }),
            "STREAMRACE_OPTIONS: unknown option 'nope' (see the options list in --help)");
}

TEST(Settings, TheTextOfSettingsParsesBackToThem) {
  Settings settings;
  EXPECT_EQ(settings_text(settings), "");
  settings.engine.strict_free = true;
  settings.engine.history_limit_mb = 5;
  settings.tracer.report_at_exit = false;
  settings.report.suppressions = "'odd'.supp"; // a quote matters only at the start
  settings.run.launcher = "mpirun -np 8";
  settings.tracer.output_dir = "a:b";
  const std::string text = settings_text(settings);
  EXPECT_EQ(text, "strict_free=true:history_limit_mb=5:suppressions=\"'odd'.supp\":"
                  "report_at_exit=false:output_dir='a:b':launcher='mpirun -np 8'");
  Settings parsed;
  EXPECT_EQ(parse_settings(text, parsed), "");
  EXPECT_EQ(settings_text(parsed), text);
  settings.run.launcher = "both ' and \"";
  EXPECT_THROW(settings_text(settings), std::invalid_argument);
}

TEST(Settings, HelpListsEverySettingAndItsAlias) {
  const std::string help = options_help();
  for (const char* name :
       {"strict_pageable_copy", "strict_free", "cross_rank_ordering", "history_limit_mb",
        "max_expanded_rows", "strict_legacy_sync", "suppressions", "halt_on_error",
        "report_at_exit", "kernel_summaries", "watchdog_seconds", "output_dir", "symbolizer",
        "launcher", "torch_ops", "cuda_libraries", "STREAMRACE_OUTPUT_DIR", "STREAMRACE_SYMBOLIZER",
        "STREAMRACE_LAUNCHER"})
    EXPECT_NE(help.find(name), std::string::npos) << name;
}

TEST(Settings, HelpStatesTheRangeOfABoundedSetting) {
  EXPECT_NE(options_help().find("thread holds (values: a power of two from 2 to 1048576)\n"),
            std::string::npos);
}

} // namespace
} // namespace streamrace
