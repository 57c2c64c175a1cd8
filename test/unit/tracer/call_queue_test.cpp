// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "queue/call_queue.h"

#include <gtest/gtest.h>

#include <string_view>
#include <variant>

namespace streamrace::tracer {
namespace {

constexpr std::uint64_t kNow = 42;

CapturedCall call_of(std::string_view api, ThreadId thread) {
  CapturedCall call;
  call.api = api;
  call.thread = thread;
  call.kernel_pointers.push_back(KernelPointer{});
  return call;
}

const AccessChecks* checks_of(const CapturedCall& call) {
  return std::get_if<AccessChecks>(&call.payload);
}

class CallQueueTest : public ::testing::Test {
protected:
  // A ring of 2 and an overflow of 3 (the pause call takes one place).
  CallQueue queue{2, 3, [] { return kNow; }};
  const std::function<bool()> never_wait = [] { return false; };
};

TEST_F(CallQueueTest, CallsGoToTheRingUntilItIsFull) {
  CapturedCall first = call_of("a", 1);
  CapturedCall second = call_of("b", 1);
  CapturedCall third = call_of("c", 1);
  EXPECT_TRUE(queue.try_push(first));
  EXPECT_TRUE(queue.try_push(second));
  EXPECT_FALSE(queue.try_push(third));
  EXPECT_EQ(queue.claimed(), 2u);
  EXPECT_EQ(queue.pop()->api, "a");
  EXPECT_EQ(queue.pop()->api, "b");
  EXPECT_FALSE(queue.pop());
}

TEST_F(CallQueueTest, OnlyAPauseOpensTheOverflow) {
  CapturedCall call = call_of("a", 1);
  EXPECT_FALSE(queue.queue_behind_pause(call, CallQueue::Pausing::IfPaused, never_wait));
  EXPECT_FALSE(queue.paused());
  EXPECT_EQ(call.kernel_pointers.size(), 1u); // untouched: it goes to the ring
}

TEST_F(CallQueueTest, APausedCallLosesItsAccessesAndFollowsThePause) {
  CapturedCall call = call_of("a", 7);
  ASSERT_TRUE(queue.queue_behind_pause(call, CallQueue::Pausing::Pause, never_wait));
  EXPECT_TRUE(queue.paused());
  std::vector<CapturedCall> taken = queue.take_overflow();
  ASSERT_EQ(taken.size(), 2u);
  ASSERT_NE(checks_of(taken[0]), nullptr);
  EXPECT_TRUE(checks_of(taken[0])->paused);
  EXPECT_EQ(taken[0].thread, 7u);
  EXPECT_EQ(taken[0].time_ns, kNow);
  EXPECT_EQ(taken[1].api, "a");
  EXPECT_TRUE(taken[1].kernel_pointers.empty());
  EXPECT_TRUE(queue.paused()); // until the tracer thread finds the overflow empty
}

TEST_F(CallQueueTest, AnEmptyOverflowResumesCheckingOnThePausingThread) {
  CapturedCall call = call_of("a", 7);
  ASSERT_TRUE(queue.queue_behind_pause(call, CallQueue::Pausing::Pause, never_wait));
  queue.take_overflow();
  std::vector<CapturedCall> resumed = queue.take_overflow();
  ASSERT_EQ(resumed.size(), 1u);
  ASSERT_NE(checks_of(resumed[0]), nullptr);
  EXPECT_FALSE(checks_of(resumed[0])->paused);
  EXPECT_EQ(resumed[0].thread, 7u);
  EXPECT_FALSE(queue.paused());
  CapturedCall next = call_of("b", 1);
  EXPECT_FALSE(queue.queue_behind_pause(next, CallQueue::Pausing::IfPaused, never_wait));
}

TEST_F(CallQueueTest, AFullOverflowWaitsAsLongAsAllowedThenDropsTheCall) {
  CapturedCall first = call_of("a", 1);
  CapturedCall second = call_of("b", 1);
  ASSERT_TRUE(queue.queue_behind_pause(first, CallQueue::Pausing::Pause, never_wait));
  ASSERT_TRUE(queue.queue_behind_pause(second, CallQueue::Pausing::IfPaused, never_wait));
  int asked = 0;
  CapturedCall third = call_of("c", 1);
  EXPECT_TRUE(queue.queue_behind_pause(third, CallQueue::Pausing::IfPaused, [&] {
    ++asked;
    return asked < 3;
  }));
  EXPECT_EQ(asked, 3);
  std::vector<CapturedCall> taken = queue.take_overflow();
  ASSERT_EQ(taken.size(), 3u); // the pause, a and b: c was given up on
  EXPECT_EQ(taken[2].api, "b");
  // The wait is counted in the resume that closes the window.
  const std::vector<CapturedCall> resumed = queue.take_overflow();
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_GT(checks_of(resumed[0])->caller_wait_ns, 0u);
}

} // namespace
} // namespace streamrace::tracer
