// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine_fixture.h"

#include "streamrace/report/suppressions.h"

namespace streamrace::testing {
namespace {

TEST(GlobMatch, StarsMatchAnyRun) {
  EXPECT_TRUE(glob_match("release_*", "release_to_secondary"));
  EXPECT_TRUE(glob_match("*secondary", "release_to_secondary"));
  EXPECT_TRUE(glob_match("*to*", "release_to_secondary"));
  EXPECT_TRUE(glob_match("exact", "exact"));
  EXPECT_FALSE(glob_match("exact", "exactly"));
  EXPECT_FALSE(glob_match("*gather", "fetch_backward"));
}

class Suppressing : public EngineTest {
protected:
  void SetUp() override {
    stream(0x100);
    stream(0x200);
    name(0x100, "C");
    malloc(0x1000, 64);
    const CallSiteId w = symbols_.add_call_site(
        {"cudaMemcpyAsync", {{"copy_helper", "util.cu", 3}, {"release_param", "zero.cu", 40}}});
    const CallSiteId r = symbols_.add_call_site({"ncclAllGather", {{"fetch", "zero.cu", 80}}});
    write(0x100, 0x1000, 64, w);
    read(0x200, 0x1000, 64, r);
    ASSERT_EQ(findings().size(), 1u);
  }
  bool suppressed(const char* text) {
    Suppressions suppressions = Suppressions::parse(text, "test.supp");
    return suppressions.suppresses(findings()[0], engine_, symbols_);
  }
};

TEST_F(Suppressing, RaceMatchesAnyFrameOrApiOfEitherAccess) {
  EXPECT_TRUE(suppressed("race:copy_helper"));
  EXPECT_TRUE(suppressed("race:release_param"));
  EXPECT_TRUE(suppressed("race:ncclAll*"));
  EXPECT_TRUE(suppressed("race:zero.cu"));
  EXPECT_FALSE(suppressed("race:unrelated"));
  EXPECT_FALSE(suppressed("use_after_free:copy_helper"));
}
TEST_F(Suppressing, AFrameMatchesByFileAndLine) {
  EXPECT_TRUE(suppressed("race:zero.cu:40"));
  EXPECT_TRUE(suppressed("race:*.cu:80"));
  EXPECT_FALSE(suppressed("race:zero.cu:41"));
}
TEST_F(Suppressing, CalledFromSkipsTheTopFrame) {
  EXPECT_TRUE(suppressed("called_from:release_param"));
  EXPECT_FALSE(suppressed("called_from:copy_helper"));
}
TEST_F(Suppressing, StreamMatchesTheNvtxName) {
  EXPECT_TRUE(suppressed("stream:C"));
  EXPECT_FALSE(suppressed("stream:A"));
}
TEST_F(Suppressing, CommentsAndBlankLinesAreIgnored) {
  EXPECT_TRUE(suppressed("# known\n\n  race:fetch  \n"));
}
TEST(SuppressionsParse, EmptyPatternIsAnError) {
  EXPECT_THROW(Suppressions::parse("race:\n", "x.supp"), std::invalid_argument);
}
TEST(SuppressionsParse, AnUnknownTypeIsAnErrorListingEachTypeOnce) {
  try {
    Suppressions::parse("raec:typo\n", "x.supp");
    ADD_FAILURE() << "an unknown type was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(),
                 "x.supp:1: 'raec:typo' is not a suppression (expected race:, "
                 "use_after_free:, use_before_alloc:, unrecorded_event:, "
                 "collective:, called_from:, stream: or sync: followed by a pattern)");
  }
}
TEST(SuppressionsParse, EveryKindsTypeIsAccepted) {
  for (const FindingKindInfo& kind : kFindingKinds)
    EXPECT_NO_THROW(Suppressions::parse(std::string(kind.suppression_type) + ":f\n", "x.supp"))
        << kind.rule_name;
}

TEST(SuppressionsOfCalls, OnlyLinesOfTheTypeNameTheCallAndEachHitIsCounted) {
  Suppressions suppressions =
      Suppressions::parse("race:train.py:12\nsync:train.py:12\nsync:*Synchronize\n", "x.supp");
  const CallSite wait{"cudaStreamWaitEvent", {{"step", "train.py", 12}}};
  const CallSite sync{"cudaDeviceSynchronize", {{"step", "train.py", 30}}};
  const CallSite other{"cudaStreamWaitEvent", {{"step", "train.py", 13}}};
  EXPECT_TRUE(suppressions.suppresses_call("sync", wait));
  EXPECT_TRUE(suppressions.suppresses_call("sync", sync));
  EXPECT_FALSE(suppressions.suppresses_call("sync", other));
  ASSERT_EQ(suppressions.rules().size(), 3u);
  EXPECT_EQ(suppressions.rules()[0].hits, 0u);
  EXPECT_EQ(suppressions.rules()[1].hits, 1u);
  EXPECT_EQ(suppressions.rules()[2].hits, 1u);
}

} // namespace
} // namespace streamrace::testing
