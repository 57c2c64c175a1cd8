// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The hand-off from the program's threads to the tracer thread: a bounded multi-producer,
// single-consumer ring (Vyukov's bounded queue). A push claims a slot with one compare-exchange
// and publishes it with one store: no lock, no system call, no allocation (a slot is reused, so
// the allocator never moves memory between the calling threads and the tracer thread). The order
// of the claims is the one order every event is processed in.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>

namespace streamrace::tracer {

template <typename Item> class EventQueue {
public:
  // `capacity` must be a power of two.
  explicit EventQueue(std::size_t capacity)
      : mask_(capacity - 1), slots_(std::make_unique<Slot[]>(capacity)) {
    for (std::size_t i = 0; i < capacity; ++i)
      slots_[i].sequence.store(i, std::memory_order_relaxed);
  }
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  // Any thread. False when the ring is full: the caller waits for the consumer and retries.
  bool try_push(Item& item) {
    std::size_t position = enqueue_.load(std::memory_order_relaxed);
    for (;;) {
      Slot& slot = slots_[position & mask_];
      const std::size_t sequence = slot.sequence.load(std::memory_order_acquire);
      const auto lag = static_cast<std::ptrdiff_t>(sequence - position);
      if (lag == 0) {
        if (enqueue_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
          slot.item = std::move(item);
          slot.sequence.store(position + 1, std::memory_order_release);
          return true;
        }
      } else if (lag < 0) {
        return false;
      } else {
        position = enqueue_.load(std::memory_order_relaxed);
      }
    }
  }

  // The consumer only. Nothing when the ring is empty, or when the next slot's producer has
  // claimed it but not yet published it (the item then comes with a later pop).
  std::optional<Item> pop() {
    Slot& slot = slots_[dequeue_ & mask_];
    if (slot.sequence.load(std::memory_order_acquire) != dequeue_ + 1) return std::nullopt;
    std::optional<Item> item(std::move(slot.item));
    slot.sequence.store(dequeue_ + mask_ + 1, std::memory_order_release);
    ++dequeue_;
    return item;
  }

  // The consumer only. How many pushes have claimed a slot and not been popped yet, published
  // or not: a push that returned before this call is among them.
  std::size_t claimed() const { return enqueue_.load(std::memory_order_acquire) - dequeue_; }

private:
  struct Slot {
    std::atomic<std::size_t> sequence{0};
    Item item{};
  };

  const std::size_t mask_;
  std::unique_ptr<Slot[]> slots_;
  alignas(64) std::atomic<std::size_t> enqueue_{0};
  alignas(64) std::size_t dequeue_ = 0;
};

} // namespace streamrace::tracer
