// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_threads/hand_off_filter.h"

#include <gtest/gtest.h>

#include <memory>

namespace streamrace::tracer {
namespace {

constexpr std::uint64_t kMutex = 0x7f00'1234'5678;
constexpr std::uint64_t kOtherMutex = 0x7f00'1234'5680;

class HandOffFilterTest : public ::testing::Test {
protected:
  std::unique_ptr<HandOffFilter> filter = std::make_unique<HandOffFilter>();
  HandOffThread main{1, 10};
  HandOffThread worker{2, 3};
};

TEST_F(HandOffFilterTest, AThreadRelockingItsOwnMutexTellsNothing) {
  EXPECT_TRUE(filter->release_carries_news(kMutex, main));
  for (int round = 0; round < 3; ++round) {
    EXPECT_FALSE(filter->acquire_carries_news(kMutex, main));
    EXPECT_FALSE(filter->release_carries_news(kMutex, main));
  }
}

TEST_F(HandOffFilterTest, AReleaseAfterTheClockChangedIsRecorded) {
  EXPECT_TRUE(filter->release_carries_news(kMutex, main));
  ++main.clock_changes;
  EXPECT_TRUE(filter->release_carries_news(kMutex, main));
  EXPECT_FALSE(filter->release_carries_news(kMutex, main));
}

TEST_F(HandOffFilterTest, AcquiringAnotherThreadsReleaseIsRecorded) {
  EXPECT_TRUE(filter->release_carries_news(kMutex, worker));
  EXPECT_TRUE(filter->acquire_carries_news(kMutex, main));
  // The worker's clock is unchanged: releasing again adds nothing to the object.
  EXPECT_FALSE(filter->release_carries_news(kMutex, worker));
}

TEST_F(HandOffFilterTest, OnceTwoThreadsReleasedAnObjectEveryAcquireIsRecorded) {
  // Semaphores are posted by any thread: the object's clock joins both releasers', so even its
  // last releaser may learn something from acquiring it.
  EXPECT_TRUE(filter->release_carries_news(kMutex, worker));
  EXPECT_TRUE(filter->release_carries_news(kMutex, main));
  EXPECT_TRUE(filter->acquire_carries_news(kMutex, main));
  EXPECT_TRUE(filter->acquire_carries_news(kMutex, worker));
}

TEST_F(HandOffFilterTest, AReleaseBetweenTwoOfTheSameThreadsIsNotSkipped) {
  EXPECT_TRUE(filter->release_carries_news(kMutex, main));
  EXPECT_TRUE(filter->release_carries_news(kMutex, worker));
  EXPECT_TRUE(filter->release_carries_news(kMutex, main));
}

TEST_F(HandOffFilterTest, ObjectsAreKeptApart) {
  EXPECT_TRUE(filter->release_carries_news(kMutex, main));
  EXPECT_TRUE(filter->release_carries_news(kOtherMutex, main));
  EXPECT_TRUE(filter->acquire_carries_news(kOtherMutex, worker));
  EXPECT_FALSE(filter->acquire_carries_news(kMutex, main));
}

TEST_F(HandOffFilterTest, AnAcquireOfAnObjectNeverReleasedIsRecorded) {
  // The engine ignores it; the filter has no slot to judge by and errs towards recording.
  EXPECT_TRUE(filter->acquire_carries_news(kMutex, main));
}

TEST_F(HandOffFilterTest, AThreadWithoutAnIndexIsNeverFiltered) {
  const HandOffThread unindexed{0, 5};
  EXPECT_TRUE(filter->release_carries_news(kMutex, unindexed));
  EXPECT_TRUE(filter->release_carries_news(kMutex, unindexed));
  EXPECT_TRUE(filter->acquire_carries_news(kMutex, unindexed));
}

TEST_F(HandOffFilterTest, AFullTableRecordsEverything) {
  // More objects than the table holds: each release beyond it finds no slot and is recorded,
  // and so is every repeat.
  for (std::uint64_t object = 1; object <= 40000; ++object)
    filter->release_carries_news(object * 64, main);
  int unfiltered = 0;
  for (std::uint64_t object = 1; object <= 40000; ++object)
    unfiltered += filter->release_carries_news(object * 64, main) ? 1 : 0;
  EXPECT_GE(unfiltered, 40000 - 16384);
}

// Releases are numbered in the order they are made, across objects; an acquire names its
// object's last one, and an object never released names none.
TEST_F(HandOffFilterTest, AnAcquireNamesItsObjectsLastRelease) {
  EXPECT_EQ(filter->last_release(kMutex), 0u);
  const std::uint64_t first = filter->number_release(kMutex);
  const std::uint64_t other = filter->number_release(kOtherMutex);
  const std::uint64_t second = filter->number_release(kMutex);
  EXPECT_LT(first, other);
  EXPECT_LT(other, second);
  EXPECT_EQ(filter->last_release(kMutex), second);
  EXPECT_EQ(filter->last_release(kOtherMutex), other);
}

} // namespace
} // namespace streamrace::tracer
