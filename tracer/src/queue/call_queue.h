// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The queue side of the tracer: the calls on their way from the program's threads to the tracer
// thread. They go to the ring (event_queue.h) while access checking is on; once the ring stayed
// full too long and checking paused, they go to the overflow list behind it, until the tracer
// thread finds that list empty and checking resumes. When to wait, pause or help is the
// Tracer's policy (back_pressure.cpp); this holds the queues and the pause.
#pragma once

#include "queue/captured_call.h"
#include "queue/event_queue.h"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

namespace streamrace::tracer {

class CallQueue {
public:
  // `clock` stamps the pause and resume calls the queue adds itself.
  CallQueue(std::size_t ring_capacity, std::size_t overflow_capacity,
            std::function<std::uint64_t()> clock);

  // Any thread. Whether access checking is paused: calls then go to the overflow.
  bool paused() const { return paused_.load(std::memory_order_acquire); }
  // Any thread. Into the ring; false when it is full.
  bool try_push(CapturedCall& call) { return ring_.try_push(call); }
  // Any thread. Puts `call` in the overflow, without its accesses, if checking is paused; if it
  // is not, `pause` pauses it first. While the overflow is full, waits for room as long as
  // `may_wait()` (called between waits) says so. True: the call is queued, or was given up on
  // because waiting stopped; false: checking is on (or resumed during the wait), and the call
  // belongs in the ring.
  enum class Pausing { IfPaused, Pause };
  bool queue_behind_pause(CapturedCall& call, Pausing pausing,
                          const std::function<bool()>& may_wait);

  // The tracer thread only. The ring's next published call, and how many are claimed and not
  // yet taken (event_queue.h).
  std::optional<CapturedCall> pop() { return ring_.pop(); }
  std::size_t claimed() const { return ring_.claimed(); }
  // The tracer thread only. Takes the overflow's calls. When there are none, checking resumes,
  // and the one call taken is the resume, with how long calls waited for room while paused.
  std::vector<CapturedCall> take_overflow();

private:
  bool wait_for_overflow_room(std::unique_lock<std::mutex>& lock,
                              const std::function<bool()>& may_wait);

  EventQueue<CapturedCall> ring_;
  const std::size_t overflow_capacity_;
  const std::function<std::uint64_t()> clock_;
  std::atomic<bool> paused_{false};
  std::mutex overflow_mutex_;
  std::condition_variable overflow_room_;
  std::vector<CapturedCall> overflow_; // under overflow_mutex_
  ThreadId pausing_thread_ = 0;        // under overflow_mutex_, for the resume's event
  std::uint64_t overflow_wait_ns_ = 0; // under overflow_mutex_: callers' waits since the resume
};

} // namespace streamrace::tracer
