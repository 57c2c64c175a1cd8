// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tells whether a progress counter has stood still for longer than a bound, as seen by a thread
// that waits for it: the program's thread that finds the event ring full, or the exiting thread
// that waits for the tracer thread to drain it. The tracer must never stop a job, so a detector
// that stopped moving (a bug, or an event too costly to process) is given up on.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>

namespace streamrace::tracer {

class StallWatch {
public:
  using Clock = std::chrono::steady_clock;
  // Where the watch reads the time: the steady clock in the tracer (never set back, unlike the
  // wall clock), a clock moved by hand in tests, so they need not sleep through the bound.
  using TimeSource = std::function<Clock::time_point()>;

  // A zero bound never stalls.
  StallWatch(
      const std::atomic<std::uint64_t>& progress, std::chrono::seconds bound,
      TimeSource now = [] { return Clock::now(); })
      : progress_(progress), bound_(bound), now_(std::move(now)),
        seen_(progress.load(std::memory_order_relaxed)), since_(now_()) {}

  bool stalled() {
    if (bound_.count() == 0) return false;
    const std::uint64_t now_seen = progress_.load(std::memory_order_relaxed);
    const Clock::time_point now = now_();
    if (now_seen != seen_) {
      seen_ = now_seen;
      since_ = now;
      return false;
    }
    return now - since_ > bound_;
  }

private:
  const std::atomic<std::uint64_t>& progress_;
  std::chrono::seconds bound_;
  TimeSource now_;
  std::uint64_t seen_;
  Clock::time_point since_;
};

} // namespace streamrace::tracer
