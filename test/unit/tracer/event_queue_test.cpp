// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "event_queue.h"

#include <gtest/gtest.h>

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

} // namespace
} // namespace streamrace::tracer
