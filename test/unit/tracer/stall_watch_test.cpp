// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "queue/stall_watch.h"

#include <gtest/gtest.h>

namespace streamrace::tracer {
namespace {

using namespace std::chrono_literals;

// The time the watch reads, moved by the test: no test sleeps, and none depends on the load of
// the machine it runs on.
class HandClock {
public:
  StallWatch::TimeSource source() {
    return [this] { return now_; };
  }
  void advance(StallWatch::Clock::duration by) { now_ += by; }

private:
  StallWatch::Clock::time_point now_;
};

class StallWatchTest : public ::testing::Test {
protected:
  std::atomic<std::uint64_t> progress{0};
  HandClock clock;
};

TEST_F(StallWatchTest, ACounterThatStandsStillPastTheBoundHasStalled) {
  StallWatch watch(progress, 1s, clock.source());
  EXPECT_FALSE(watch.stalled());
  clock.advance(1s);
  EXPECT_FALSE(watch.stalled()); // the bound itself is still within it
  clock.advance(1ms);
  EXPECT_TRUE(watch.stalled());
}

// Progress seen late in the bound buys a whole bound from then on: a watch that kept timing from
// its start would stall at the second look, 1.6 s after its start but 0.8 s after progress.
TEST_F(StallWatchTest, ProgressRestartsTheBound) {
  StallWatch watch(progress, 1s, clock.source());
  clock.advance(800ms);
  progress.fetch_add(1);
  EXPECT_FALSE(watch.stalled());
  clock.advance(800ms);
  EXPECT_FALSE(watch.stalled());
  clock.advance(300ms);
  EXPECT_TRUE(watch.stalled());
}

// After progress, a counter that stands still again stalls once more: progress is a restart,
// not a pardon.
TEST_F(StallWatchTest, ACounterThatStopsAfterProgressStallsAgain) {
  StallWatch watch(progress, 1s, clock.source());
  for (int step = 0; step < 5; ++step) {
    clock.advance(900ms);
    progress.fetch_add(1);
    EXPECT_FALSE(watch.stalled());
  }
  clock.advance(1001ms);
  EXPECT_TRUE(watch.stalled());
}

TEST_F(StallWatchTest, AZeroBoundNeverStalls) {
  StallWatch watch(progress, 0s, clock.source());
  clock.advance(24h);
  EXPECT_FALSE(watch.stalled());
}

} // namespace
} // namespace streamrace::tracer
