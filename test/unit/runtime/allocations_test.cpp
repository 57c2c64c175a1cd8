// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/allocations.h"

#include <gtest/gtest.h>

namespace streamrace {
namespace {

TEST(AllocationTable, AFreedRangeIsFoundWithItsFreeSite) {
  AllocationTable table;
  table.add(0, {.base = 0x1000, .size = 0x100, .site = 1});
  ASSERT_TRUE(table.release(0, 0x1000, 9));
  EXPECT_EQ(table.live_at(0, 0x1010), nullptr);
  const Allocation* found = table.find(0, 0x1010);
  ASSERT_NE(found, nullptr);
  EXPECT_TRUE(found->freed);
  EXPECT_EQ(found->site, 1u);
  EXPECT_EQ(found->free_site, 9u);
  EXPECT_EQ(table.find(0, 0x1100), nullptr); // one past the end
  EXPECT_EQ(table.find(1, 0x1010), nullptr); // another process
}

TEST(AllocationTable, ReleaseOfAPointerNeverAllocatedIsRefused) {
  AllocationTable table;
  table.add(0, {.base = 0x1000, .size = 0x100, .site = 1});
  EXPECT_FALSE(table.release(0, 0x1010, 9)); // not its start
  EXPECT_FALSE(table.release(0, 0x5000, 9));
  EXPECT_NE(table.live_at(0, 0x1010), nullptr);
}

// Memory allocated again is described by its new allocation while it lives, and by its
// latest free once that one is freed too.
TEST(AllocationTable, TheNewestAllocationOfARangeAnswersForIt) {
  AllocationTable table;
  table.add(0, {.base = 0x1000, .size = 0x100, .site = 1});
  table.release(0, 0x1000, 2);
  table.add(0, {.base = 0x1000, .size = 0x80, .site = 3});
  EXPECT_EQ(table.find(0, 0x1010)->site, 3u);
  EXPECT_FALSE(table.find(0, 0x1010)->freed);
  // Bytes the new allocation does not cover were last the old one's.
  EXPECT_EQ(table.find(0, 0x10a0)->site, 1u);
  table.release(0, 0x1000, 4);
  EXPECT_EQ(table.find(0, 0x1010)->site, 3u);
  EXPECT_EQ(table.find(0, 0x1010)->free_site, 4u);
}

TEST(AllocationTable, KeepsOnlyTheLatestFrees) {
  AllocationTable table(/*freed_kept=*/3);
  for (Address i = 0; i < 5; ++i) {
    table.add(0, {.base = 0x1000 * (i + 1), .size = 0x100, .site = static_cast<CallSiteId>(i + 1)});
    table.release(0, 0x1000 * (i + 1), 0);
  }
  EXPECT_EQ(table.find(0, 0x1000), nullptr); // overwritten, oldest first
  EXPECT_EQ(table.find(0, 0x2000), nullptr);
  for (Address i = 2; i < 5; ++i) {
    const Allocation* found = table.find(0, 0x1000 * (i + 1));
    ASSERT_NE(found, nullptr) << i;
    EXPECT_EQ(found->site, i + 1);
  }
  // Reuse of one range, then its free: the newest entry of the ring wins.
  table.add(0, {.base = 0x3000, .size = 0x100, .site = 7});
  table.release(0, 0x3000, 0);
  EXPECT_EQ(table.find(0, 0x3000)->site, 7u);
  EXPECT_EQ(table.find(0, 0x4000)->site, 4u);
  EXPECT_EQ(table.find(0, 0x5000)->site, 5u);
}

TEST(AllocationTable, KeepingNoFreesForgetsThem) {
  AllocationTable table(/*freed_kept=*/0);
  table.add(0, {.base = 0x1000, .size = 0x100, .site = 1});
  ASSERT_TRUE(table.release(0, 0x1000, 2));
  EXPECT_EQ(table.find(0, 0x1000), nullptr);
}

} // namespace
} // namespace streamrace
