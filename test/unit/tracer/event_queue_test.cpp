// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "queue/event_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

namespace streamrace::tracer {
namespace {

struct Item {
  int producer = 0;
  int sequence = 0;
};

TEST(EventQueue, KeepsEachProducersOrderAndLosesNothingWhenFull) {
  constexpr int kProducers = 4;
  constexpr int kItemsEach = 50'000;
  EventQueue<Item> queue(64); // small: producers find it full and retry
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p)
    producers.emplace_back([&queue, p] {
      for (int i = 0; i < kItemsEach; ++i) {
        Item item{p, i};
        while (!queue.try_push(item))
          std::this_thread::yield();
      }
    });
  std::vector<int> next(kProducers, 0);
  int received = 0;
  while (received < kProducers * kItemsEach) {
    std::optional<Item> item = queue.pop();
    if (!item) {
      std::this_thread::yield();
      continue;
    }
    ASSERT_EQ(item->sequence, next[item->producer]) << "producer " << item->producer;
    ++next[item->producer];
    ++received;
  }
  for (std::thread& producer : producers)
    producer.join();
  EXPECT_FALSE(queue.pop());
}

TEST(EventQueue, RefusesAPushWhenFull) {
  EventQueue<Item> queue(2);
  Item item;
  EXPECT_TRUE(queue.try_push(item));
  EXPECT_TRUE(queue.try_push(item));
  EXPECT_FALSE(queue.try_push(item));
  EXPECT_TRUE(queue.pop());
  EXPECT_TRUE(queue.try_push(item));
}

// An item whose move into its slot waits for the test: its producer has claimed the slot and
// not yet published it, as a producer preempted between the two does.
struct HeldItem {
  static inline std::atomic<bool> moving{false};
  static inline std::atomic<bool> release{false};
  int value = 0;
  HeldItem() = default;
  explicit HeldItem(int v) : value(v) {}
  HeldItem(HeldItem&& other) noexcept : value(other.value) {}
  HeldItem& operator=(HeldItem&& other) noexcept {
    moving = true;
    while (!release)
      std::this_thread::yield();
    value = other.value;
    return *this;
  }
};

TEST(EventQueue, CountsAClaimedSlotItsProducerHasNotPublished) {
  EventQueue<HeldItem> queue(4);
  EXPECT_EQ(queue.claimed(), 0u);
  std::thread producer([&queue] {
    HeldItem item(7);
    EXPECT_TRUE(queue.try_push(item));
  });
  while (!HeldItem::moving)
    std::this_thread::yield();
  EXPECT_EQ(queue.claimed(), 1u);
  EXPECT_FALSE(queue.pop()) << "an unpublished slot pops nothing";
  HeldItem::release = true;
  producer.join();
  std::optional<HeldItem> item = queue.pop();
  ASSERT_TRUE(item);
  EXPECT_EQ(item->value, 7);
  EXPECT_EQ(queue.claimed(), 0u);
}

} // namespace
} // namespace streamrace::tracer
