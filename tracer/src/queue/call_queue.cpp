// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "queue/call_queue.h"

#include <chrono>
#include <utility>

namespace streamrace::tracer {

namespace {

// How long a thread waiting for overflow room sleeps between looks, if not woken.
constexpr auto kRoomPoll = std::chrono::microseconds(50);

CapturedCall checking_change(AccessChecks checks, ThreadId thread, std::uint64_t time_ns) {
  CapturedCall change;
  change.api =
      checks.paused ? "streamrace: access checking paused" : "streamrace: access checking resumed";
  change.payload = checks;
  change.thread = thread;
  change.time_ns = time_ns;
  return change;
}

} // namespace

CallQueue::CallQueue(std::size_t ring_capacity, std::size_t overflow_capacity,
                     std::function<std::uint64_t()> clock)
    : ring_(ring_capacity), overflow_capacity_(overflow_capacity), clock_(std::move(clock)) {}

bool CallQueue::queue_behind_pause(CapturedCall& call, Pausing pausing,
                                   const std::function<bool()>& may_wait) {
  std::unique_lock lock(overflow_mutex_);
  if (!paused_.load(std::memory_order_relaxed)) {
    if (pausing == Pausing::IfPaused) return false;
    pausing_thread_ = call.thread;
    overflow_.push_back(checking_change(AccessChecks{true}, call.thread, clock_()));
    paused_.store(true, std::memory_order_release);
  }
  if (overflow_.size() >= overflow_capacity_) {
    if (!wait_for_overflow_room(lock, may_wait)) return true;
    // Checking resumed while this thread waited: the call goes to the ring, after the others.
    if (!paused_.load(std::memory_order_relaxed)) return false;
  }
  // The engine will not check the call's accesses: a graph build keeps its kernel node's, which
  // the graph's later launches are checked with.
  if (!call.graph_build) {
    call.kernel_pointers = {};
    call.stated_accesses.reset();
    call.host_access = {};
  }
  overflow_.push_back(std::move(call));
  return true;
}

bool CallQueue::wait_for_overflow_room(std::unique_lock<std::mutex>& lock,
                                       const std::function<bool()>& may_wait) {
  const auto began = std::chrono::steady_clock::now();
  bool room = true;
  while (paused_.load(std::memory_order_relaxed) && overflow_.size() >= overflow_capacity_) {
    if (!may_wait()) {
      room = false;
      break;
    }
    overflow_room_.wait_for(lock, kRoomPoll);
  }
  // Counted in the window that is open, or else in the next one.
  overflow_wait_ns_ += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - began)
          .count());
  return room;
}

std::vector<CapturedCall> CallQueue::take_overflow() {
  std::vector<CapturedCall> taken;
  {
    std::lock_guard lock(overflow_mutex_);
    taken.swap(overflow_);
    if (taken.empty()) {
      // Caught up: calls go to the ring again, after everything processed so far.
      paused_.store(false, std::memory_order_release);
      taken.push_back(checking_change(AccessChecks{false, std::exchange(overflow_wait_ns_, 0)},
                                      pausing_thread_, clock_()));
    }
  }
  overflow_room_.notify_all();
  return taken;
}

} // namespace streamrace::tracer
