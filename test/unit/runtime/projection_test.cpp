// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Settling's projected replay (Engine::check_only): only the checked ranks' actors have clock
// components, yet the races among their accesses are those of the unprojected engine, however
// the ordering passes through the other ranks' streams.
#include "engine_fixture.h"

namespace streamrace::testing {
namespace {

constexpr StreamHandle S1 = 0xa00, S2 = 0xb00, RELAY = 0xc00;
constexpr EventHandle WRITTEN = 0xe1, RELAYED = 0xe2;
constexpr Address X = 0x10000;

// Rank 0 writes X on S1 and reads it on S2; between them, a stream of rank 1 (same process,
// another device and thread) relays S1's event to S2, or, with `relay_waits` false, records
// its event without waiting.
class Projection : public EngineTest, public ::testing::WithParamInterface<bool> {
protected:
  void run(bool relay_waits) {
    rank = 1;
    thread = 2;
    stream(RELAY, StreamKind::NonBlocking, 1);
    rank = 0;
    thread = 1;
    stream(S1, StreamKind::NonBlocking);
    stream(S2, StreamKind::NonBlocking);
    malloc(X, 64);
    write(S1, X, 64, site("kernel", "produce", 10));
    record(WRITTEN, S1);
    rank = 1;
    thread = 2;
    if (relay_waits) wait(RELAY, WRITTEN);
    record(RELAYED, RELAY);
    rank = 0;
    thread = 1;
    wait(S2, RELAYED);
    read(S2, X, 64, site("kernel", "consume", 20));
    finish();
  }
  void project_on_rank_0() {
    if (GetParam()) engine_.check_only({true, false});
  }
};

TEST_P(Projection, AnEventRelayedByAnotherRanksStreamOrders) {
  project_on_rank_0();
  run(true);
  EXPECT_EQ(races(), 0u) << report();
}

TEST_P(Projection, AnEventRecordedWithoutTheRelaysWaitDoesNot) {
  project_on_rank_0();
  run(false);
  ASSERT_EQ(races(), 1u);
  EXPECT_EQ(findings()[0].kind, FindingKind::RaceWriteRead);
  EXPECT_EQ(findings()[0].ranks, std::vector<RankId>{0});
}

// The other rank's accesses are not checked: its own race goes unreported when projected.
TEST_P(Projection, OnlyTheCheckedRanksAccessesAreChecked) {
  project_on_rank_0();
  rank = 1;
  thread = 2;
  stream(S1, StreamKind::NonBlocking, 1);
  stream(S2, StreamKind::NonBlocking, 1);
  malloc(X, 64);
  write(S1, X, 64);
  read(S2, X, 64);
  finish();
  EXPECT_EQ(races(), GetParam() ? 0u : 1u);
}

// Settling takes the report's pauses from the projected pass, so another rank's paused accesses
// still count as unchecked there.
TEST_P(Projection, AnotherRanksPausedAccessesStillCountAsUnchecked) {
  project_on_rank_0();
  rank = 1;
  thread = 2;
  address_space = 1;
  stream(S1, StreamKind::NonBlocking, 1);
  malloc(X, 64);
  emit(AccessChecks{true});
  write(S1, X, 64);
  emit(AccessChecks{false});
  finish();
  ASSERT_EQ(engine_.checking_pauses().size(), 1u);
  EXPECT_EQ(engine_.checking_pauses()[0].rank, 1u);
  EXPECT_EQ(engine_.checking_pauses()[0].unchecked_accesses, 1u);
}

INSTANTIATE_TEST_SUITE_P(Engine, Projection, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "projected" : "whole"; });

TEST(ForeignActors, HaveNoComponentAndAreNeverCovered) {
  VectorClock clock;
  const ActorId foreign = kForeignActor | 3;
  EXPECT_EQ(clock.tick(foreign), 1u);
  EXPECT_EQ(clock.size(), 0u); // no component was made for it
  EXPECT_FALSE(clock.covers(foreign, 0));
  EXPECT_TRUE(clock.covers(7, 0));
  clock.tick(2);
  EXPECT_TRUE(clock.covers(2, 1));
  EXPECT_FALSE(clock.covers(2, 2));
}

} // namespace
} // namespace streamrace::testing
