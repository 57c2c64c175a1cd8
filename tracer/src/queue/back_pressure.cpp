// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What happens when the program makes calls faster than the tracer thread processes them and
// the ring fills up. With block_on_full, the calling thread waits as long as it takes (or
// processes the ring itself), and nothing goes unchecked. By default it waits
// full_ring_wait_us at most; past that, access checking pauses: every call from then on, on
// every thread, goes to an overflow list (a lock and an append), in call order and after every
// call in the ring, including the ones a preempted thread publishes late. Ordering calls are never
// dropped, since a lost record, wait or sync would invent races; the tracer thread processes the
// overflow's calls between an AccessChecks pause and resume (docs/semantics.md), so the engine
// keeps every ordering but checks and remembers none of their accesses. A call is therefore queued
// without its accesses, which keeps the overflow small, and the overflow is bounded
// (overflow_capacity): when it is full, the calling thread waits for the tracer thread to take it.
// Checking resumes when the tracer thread finds the overflow empty; the trace holds the window and
// how long calls waited in it, and the report says how long it lasted, how many accesses went
// unchecked and how long calls waited. The ring, the overflow and the pause are the CallQueue's
// (call_queue.h); this is the Tracer's policy over them.
#include "queue/stall_watch.h"
#include "tracer.h"

#include <chrono>
#include <optional>
#include <thread>
#include <utility>

namespace streamrace::tracer {

namespace {

// How long a thread waiting for ring room sleeps between tries.
constexpr auto kRoomPoll = std::chrono::microseconds(50);

} // namespace

bool Tracer::wait_for_room(CapturedCall& call) {
  std::optional<StallWatch> watch;
  while (!queue_->try_push(call)) {
    if (!enabled() || stopping_.load(std::memory_order_relaxed)) return false;
    // Full: help the tracer thread if it is not at work, else give it time, but not for ever.
    if (engine_mutex_.try_lock()) {
      std::lock_guard lock(engine_mutex_, std::adopt_lock);
      drain();
    } else {
      if (!watch) watch.emplace(progress_, std::chrono::seconds(settings_.tracer.watchdog_seconds));
      if (watch->stalled()) {
        give_up_on_stalled_detector();
        return false;
      }
      wake_.notify_one();
      std::this_thread::sleep_for(kRoomPoll);
    }
  }
  return true;
}

void Tracer::push_within_bound(CapturedCall& call) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(settings_.tracer.full_ring_wait_us);
  for (;;) {
    if (queue_->paused() && queue_behind_pause(call, CallQueue::Pausing::IfPaused)) return;
    if (queue_->try_push(call)) return;
    if (std::chrono::steady_clock::now() >= deadline &&
        queue_behind_pause(call, CallQueue::Pausing::Pause))
      return;
    if (!enabled() || stopping_.load(std::memory_order_relaxed)) return;
    wake_.notify_one();
    std::this_thread::sleep_for(kRoomPoll);
  }
}

bool Tracer::queue_behind_pause(CapturedCall& call, CallQueue::Pausing pausing) {
  // A full overflow is waited for, but not once tracing stops or the detector stands still.
  std::optional<StallWatch> watch;
  const auto may_wait = [&] {
    if (!enabled() || stopping_.load(std::memory_order_relaxed)) return false;
    if (!watch) watch.emplace(progress_, std::chrono::seconds(settings_.tracer.watchdog_seconds));
    if (watch->stalled()) {
      give_up_on_stalled_detector();
      return false;
    }
    wake_.notify_one();
    return true;
  };
  return queue_->queue_behind_pause(call, pausing, may_wait);
}

std::size_t Tracer::drain_overflow() {
  std::vector<CapturedCall> taken = queue_->take_overflow();
  // A thread that saw checking on and was then preempted pushes its call into the ring after
  // the pause began, and its next call into the overflow: that call is in `taken`, and the
  // earlier one claimed its ring slot before the swap. Processing the ring up to the claims
  // made so far keeps every thread's calls in their order, so no record lands after its wait.
  const std::size_t ring_calls = drain_claimed_ring();
  for (CapturedCall& call : taken)
    process_taken(call);
  return ring_calls + taken.size();
}

std::size_t Tracer::drain_claimed_ring() {
  std::size_t processed = 0;
  std::optional<StallWatch> watch;
  for (std::size_t pending = queue_->claimed(); pending > 0;) {
    std::optional<CapturedCall> call = queue_->pop();
    if (!call) {
      // Claimed, not yet published: its thread is between two stores, unless it stopped there
      // for good (killed in a signal handler), which must not stop the tracer.
      if (!watch) watch.emplace(progress_, std::chrono::seconds(1));
      if (watch->stalled()) break;
      std::this_thread::yield();
      continue;
    }
    --pending;
    ++processed;
    process_taken(*call);
  }
  return processed;
}

} // namespace streamrace::tracer
