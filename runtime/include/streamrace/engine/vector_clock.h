// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Vector clocks over actors (streams, host threads, graph lanes of every rank). An access is
// recorded as an epoch of its actor; "A happens-before B" is B's clock covering A's epoch.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace streamrace {

using ActorId = std::uint32_t;
// 32 bits keep clocks small and their joins vectorizable; a stream that exhausts its epochs
// continues as a fresh actor (Ordering::advance), so no epoch ever wraps.
using Epoch = std::uint32_t;
inline constexpr Epoch kLastEpoch = 0xffffffffu - 1;

// A projected replay (Ordering::project) keeps clocks only for the actors of the processes it
// checks; the others' ids carry this bit and no clock has a component for them. Joins and ticks
// commute with dropping components, so what the kept components say is exact.
inline constexpr ActorId kForeignActor = 0x80000000u;
inline constexpr bool is_foreign(ActorId actor) {
  return (actor & kForeignActor) != 0;
}

// A cross-rank meeting (the k-th collective on a communicator, or a send/recv pair) whose
// outcome is not known yet because some rank's part of it has not arrived. Clocks that already
// depend on it carry a reference and fold its outcome in once it completes.
struct Meeting;

class VectorClock {
public:
  Epoch get(ActorId actor) const { return actor < epochs_.size() ? epochs_[actor] : 0; }
  bool covers(ActorId actor, Epoch epoch) const {
    return actor < epochs_.size() ? epochs_[actor] >= epoch : epoch == 0 && !is_foreign(actor);
  }

  // Advances the actor's own component and returns the new epoch. Every op ticks: inline. A
  // foreign actor has no component: its steps are not kept, and `covers` never holds for them.
  Epoch tick(ActorId actor) {
    if (actor >= epochs_.size()) [[unlikely]] {
      if (is_foreign(actor)) return 1;
      grow(actor + 1);
    }
    return ++epochs_[actor];
  }
  void join(const VectorClock& other);

  const std::vector<std::shared_ptr<Meeting>>& pending() const { return pending_; }
  void add_pending(const std::shared_ptr<Meeting>& meeting);
  void remove_pending(const Meeting* meeting);

  std::size_t size() const { return epochs_.size(); }
  bool operator==(const VectorClock&) const = default;

private:
  void grow(std::size_t size);

  std::vector<Epoch> epochs_;
  std::vector<std::shared_ptr<Meeting>> pending_;
};

} // namespace streamrace
