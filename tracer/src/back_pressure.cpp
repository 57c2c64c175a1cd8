// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What happens when the program makes calls faster than the tracer thread processes them and
// the ring fills up. With block_on_full, the calling thread waits as long as it takes (or
// processes the ring itself), and nothing goes unchecked. By default it waits
// full_ring_wait_us at most; past that, access checking pauses: every call from then on, on
// every thread, goes to an overflow list (a lock and an append, no waiting), in call order and
// after every call in the ring. Ordering calls are never dropped, since a lost record, wait or
// sync would invent races; the tracer thread processes the overflow's calls between an
// AccessChecks pause and resume (docs/semantics.md), so the engine keeps every ordering but
// checks and remembers none of their accesses, and skips resolving kernels' pointers. Checking
// resumes when the tracer thread finds the overflow empty; the trace holds the window, and the
// report says how long it lasted and how many accesses went unchecked.
#include "stall_watch.h"
#include "tracer.h"

#include <chrono>
#include <thread>

namespace streamrace::tracer {

namespace {

constexpr auto kRoomPoll = std::chrono::microseconds(50);

CapturedCall checking_change(bool paused, ThreadId thread, std::uint64_t time_ns) {
  CapturedCall change;
  change.api =
      paused ? "streamrace: access checking paused" : "streamrace: access checking resumed";
  change.payload = AccessChecks{paused};
  change.thread = thread;
  change.time_ns = time_ns;
  return change;
}

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
    if (paused_.load(std::memory_order_acquire) && queue_behind_pause(call, false)) return;
    if (queue_->try_push(call)) return;
    if (std::chrono::steady_clock::now() >= deadline && queue_behind_pause(call, true)) return;
    if (!enabled() || stopping_.load(std::memory_order_relaxed)) return;
    wake_.notify_one();
    std::this_thread::sleep_for(kRoomPoll);
  }
}

bool Tracer::queue_behind_pause(CapturedCall& call, bool open) {
  std::lock_guard lock(overflow_mutex_);
  if (!paused_.load(std::memory_order_relaxed)) {
    if (!open) return false;
    pausing_thread_ = call.thread;
    overflow_.push_back(checking_change(true, call.thread, clock_()));
    paused_.store(true, std::memory_order_release);
  }
  overflow_.push_back(std::move(call));
  return true;
}

std::size_t Tracer::drain_overflow() {
  std::vector<CapturedCall> taken;
  {
    std::lock_guard lock(overflow_mutex_);
    taken.swap(overflow_);
    if (taken.empty()) {
      // Caught up: calls go to the ring again, after everything processed so far.
      paused_.store(false, std::memory_order_release);
      taken.push_back(checking_change(false, pausing_thread_, clock_()));
    }
  }
  for (CapturedCall& call : taken) {
    progress_.fetch_add(1, std::memory_order_relaxed);
    if (finished_ || !enabled()) continue;
    if (settings_.tracer.tracer_delay_us != 0)
      std::this_thread::sleep_for(std::chrono::microseconds(settings_.tracer.tracer_delay_us));
    // Accesses the engine will not check need not be resolved.
    if (!call.graph_build) {
      call.kernel_pointers.clear();
      call.stated_accesses.reset();
      call.host_access = {};
    }
    process(call);
  }
  return taken.size();
}

} // namespace streamrace::tracer
