// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tells whether a progress counter has stood still for longer than a bound, as seen by a thread
// that waits for it: the program's thread that finds the event ring full, or the exiting thread
// that waits for the tracer thread to drain it. The tracer must never stop a job, so a detector
// that stopped moving (a bug, or an event too costly to process) is given up on.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace streamrace::tracer {

class StallWatch {
public:
  // A zero bound never stalls.
  StallWatch(const std::atomic<std::uint64_t>& progress, std::chrono::seconds bound)
      : progress_(progress), bound_(bound), seen_(progress.load(std::memory_order_relaxed)),
        since_(std::chrono::steady_clock::now()) {}

  bool stalled() {
    if (bound_.count() == 0) return false;
    const std::uint64_t now_seen = progress_.load(std::memory_order_relaxed);
    const auto now = std::chrono::steady_clock::now();
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
  std::uint64_t seen_;
  std::chrono::steady_clock::time_point since_;
};

} // namespace streamrace::tracer
