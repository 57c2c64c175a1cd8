// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The order in which one device starts its streams' operations. A GPU's front end dispatches
// work in the order the host submitted it, across streams: an operation whose dependencies are
// met does not wait for later-submitted work, and a small operation reaches the hardware well
// before anything submitted after it. Stream workers are threads the OS schedules as it likes,
// so without this a worker woken late lets work submitted after its operation overtake it.
//
// The rule, per device: an operation may begin only when no operation submitted earlier on the
// same device *holds* it back. An earlier operation holds later ones back while it is
// - ready and not yet begun (its stream has reached it and its dependencies have finished), or
// - begun and "held until finished": a short, undelayed copy, set, kernel, event record or wait,
//   which on a GPU completes before work submitted after it gets going.
// It stops holding once it has begun, if it is a host function, a graph, or delayed by the race
// knobs (the delay runs inside the operation, like a slow kernel). An operation still waiting
// for its stream or for an event never holds anything back, so nothing here can deadlock: the
// earliest ready operation is never held, short operations finish on their own, and the others
// only need to begin. Event records and waits touch no memory, so they begin without waiting
// for their turn (they still hold later work until they finish, keeping chains such as
// "wait for the event, then copy" ahead of work submitted after them).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "completion.h"

namespace streamrace::emu {

class DispatchOrder {
public:
  // How an operation takes part once its turn has come.
  enum class Start {
    // Touches no memory (event records and waits, async allocations): begins at once and holds
    // later operations back only until it finishes, an instant later.
    Marker,
    // Short device work (copies, sets, kernels, frees): waits for its turn, then holds later
    // operations back until it finishes.
    Short,
    // Host functions, graphs and delayed operations: wait for their turn, then hold nothing.
    Long
  };

  class Ticket {
  public:
    Ticket(std::uint64_t number, std::vector<CompletionPtr> dependencies)
        : number_(number), dependencies_(std::move(dependencies)) {}

  private:
    friend class DispatchOrder;
    enum class State {
      BehindItsStream,   // an earlier operation of its stream has not finished
      StreamsTurn,       // the next operation of its stream, not begun
      HeldUntilFinished, // begun, holding later operations back until it finishes
      Running,           // begun, holding nothing back
      Finished
    };
    const std::uint64_t number_;
    const std::vector<CompletionPtr> dependencies_; // other streams' work and awaited events
    State state_ = State::BehindItsStream;
    std::shared_ptr<Ticket> nextOfStream_;
    bool waiting_ = false; // its worker is blocked in begin()
    std::condition_variable wakeUp_;
  };
  using TicketPtr = std::shared_ptr<Ticket>;

  // `inSubmissionOrder == false` (STREAMRACE_EMU_DISPATCH=any-order) lets every ready operation
  // begin at once, whenever its worker thread gets to run.
  explicit DispatchOrder(bool inSubmissionOrder) : inSubmissionOrder_(inSubmissionOrder) {}

  // Called in submission order. `previousOfStream` is the ticket of the stream's previous
  // operation (nullptr for its first); `dependencies` what the operation waits for besides it.
  // Returns nullptr when the order is not enforced.
  TicketPtr admit(const TicketPtr& previousOfStream, std::vector<CompletionPtr> dependencies) {
    if (!inSubmissionOrder_) {
      return nullptr;
    }
    std::lock_guard lock(mutex_);
    auto ticket = std::make_shared<Ticket>(nextNumber_++, std::move(dependencies));
    if (previousOfStream == nullptr || previousOfStream->state_ == Ticket::State::Finished) {
      takeTurn(ticket);
    } else {
      previousOfStream->nextOfStream_ = ticket;
    }
    return ticket;
  }

  // Blocks (except for a marker) until nothing submitted earlier on this device holds `ticket`
  // back, then marks it begun. Call once its stream has reached it and its dependencies have
  // finished.
  void begin(const TicketPtr& ticket, Start start) {
    if (ticket == nullptr) {
      return;
    }
    std::unique_lock lock(mutex_);
    if (start != Start::Marker) {
      ticket->waiting_ = true;
      ticket->wakeUp_.wait(lock, [&] { return !heldBack(*ticket); });
      ticket->waiting_ = false;
    }
    if (start != Start::Long) {
      ticket->state_ = Ticket::State::HeldUntilFinished;
      return;
    }
    ticket->state_ = Ticket::State::Running;
    contenders_.erase(ticket->number_);
    wakeTheNextInLine();
  }

  // Call after the operation's completion is marked done: work waiting only for it is then
  // ready, and holds later work back, before this operation stops holding.
  void finish(const TicketPtr& ticket) {
    if (ticket == nullptr) {
      return;
    }
    std::lock_guard lock(mutex_);
    ticket->state_ = Ticket::State::Finished;
    contenders_.erase(ticket->number_);
    if (ticket->nextOfStream_ != nullptr) {
      takeTurn(ticket->nextOfStream_);
      ticket->nextOfStream_.reset();
    }
    wakeTheNextInLine();
  }

private:
  void takeTurn(const TicketPtr& ticket) {
    ticket->state_ = Ticket::State::StreamsTurn;
    contenders_.emplace(ticket->number_, ticket.get());
  }

  static bool holds(const Ticket& ticket) {
    if (ticket.state_ == Ticket::State::HeldUntilFinished) {
      return true;
    }
    for (const CompletionPtr& dependency : ticket.dependencies_) {
      if (!dependency->isDone()) {
        return false; // not ready: it holds nothing back
      }
    }
    return true;
  }

  bool heldBack(const Ticket& ticket) const {
    for (const auto& [number, earlier] : contenders_) {
      if (number >= ticket.number_) {
        return false;
      }
      if (holds(*earlier)) {
        return true;
      }
    }
    return false;
  }

  // Only an operation before the first one that holds can begin, and a waiting one is itself
  // ready, so at most one worker needs waking: no thundering herd on devices with many streams.
  // (Dependencies finishing elsewhere only ever add holders, so they need no wake-up.)
  void wakeTheNextInLine() {
    for (const auto& [number, contender] : contenders_) {
      if (contender->waiting_) {
        contender->wakeUp_.notify_one();
        return;
      }
      if (holds(*contender)) {
        return;
      }
    }
  }

  const bool inSubmissionOrder_;
  std::mutex mutex_;
  std::uint64_t nextNumber_ = 0;
  // The operations that may hold others back: at most one per stream, the one whose turn it
  // is. Each stays alive while listed: its stream's worker holds it until finish().
  std::map<std::uint64_t, Ticket*> contenders_;
};

} // namespace streamrace::emu
