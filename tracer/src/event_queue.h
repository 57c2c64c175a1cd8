// The hand-off from the program's threads to the tracer thread: a multi-producer, single-consumer
// queue (Vyukov's intrusive list). A push is one atomic exchange and one store, never a lock or
// a system call, so calling threads do not wait for each other or for the tracer; the order of
// the exchanges is the one order every event is processed in.
#pragma once

#include <atomic>
#include <memory>
#include <optional>

namespace streamrace::tracer {

template <typename Item> class EventQueue {
public:
  // Starts with one empty node that the first pop discards.
  EventQueue() : head_(std::make_unique<Node>().release()), tail_(head_.load()) {}
  ~EventQueue() {
    while (pop()) {
    }
    std::unique_ptr<Node> last(tail_);
  }
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  // Any thread.
  void push(Item item) {
    auto node = std::make_unique<Node>();
    node->item.emplace(std::move(item));
    Node* added = node.release();
    Node* previous = head_.exchange(added, std::memory_order_acq_rel);
    previous->next.store(added, std::memory_order_release);
  }

  // The consumer only. Nothing when the queue is empty, or when a producer is between its two
  // steps (the item then comes with a later pop).
  std::optional<Item> pop() {
    Node* next = tail_->next.load(std::memory_order_acquire);
    if (next == nullptr) return std::nullopt;
    std::unique_ptr<Node> consumed(tail_);
    tail_ = next;
    std::optional<Item> item = std::move(next->item);
    next->item.reset();
    return item;
  }

private:
  struct Node {
    std::atomic<Node*> next{nullptr};
    std::optional<Item> item;
  };

  std::atomic<Node*> head_; // the most recently pushed node
  Node* tail_;              // the node before the next one to pop
};

} // namespace streamrace::tracer
