// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "stall_watch.h"

#include <gtest/gtest.h>

#include <thread>

namespace streamrace::tracer {
namespace {

using namespace std::chrono_literals;

TEST(StallWatch, ACounterThatStandsStillPastTheBoundHasStalled) {
  std::atomic<std::uint64_t> progress{0};
  StallWatch watch(progress, 1s);
  EXPECT_FALSE(watch.stalled());
  std::this_thread::sleep_for(1100ms);
  EXPECT_TRUE(watch.stalled());
}

TEST(StallWatch, ProgressRestartsTheBound) {
  std::atomic<std::uint64_t> progress{0};
  StallWatch watch(progress, 1s);
  for (int step = 0; step < 6; ++step) {
    std::this_thread::sleep_for(200ms); // 1.2 s in all, never 1 s without progress
    progress.fetch_add(1);
    EXPECT_FALSE(watch.stalled());
  }
}

TEST(StallWatch, AZeroBoundNeverStalls) {
  std::atomic<std::uint64_t> progress{0};
  StallWatch watch(progress, 0s);
  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(watch.stalled());
}

} // namespace
} // namespace streamrace::tracer
