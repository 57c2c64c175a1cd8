// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which host hand-offs can change a clock. A framework's Python thread locks and unlocks its own
// mutexes hundreds of thousands of times in a short job; recording each as a HostRelease and a
// HostAcquire made a four-rank PyTorch job a million events, nearly all of which told the engine
// nothing. Two cases tell it nothing, and both are decided exactly:
//  - an acquire of an object only this thread has ever released (the object's clock is a join of
//    this thread's earlier clocks, which its clock already covers);
//  - a release by the object's last releaser whose clock has not changed since (joining the same
//    clock twice adds nothing).
// The filter is called from inside pthread_mutex_lock and friends, so it takes no lock and
// allocates nothing: a fixed open-addressed table whose keys, once claimed, never change (an
// address reused by a new object keeps its slot, as the engine keys hand-offs by address too).
// When the table is full or a thread has no index, everything is recorded.
// The same table numbers the releases recorded: a host function's hand-offs reach the engine at
// the function's place, after what the program did meanwhile, so an acquire names the release it
// followed and the engine pairs them whatever order they arrive in.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace streamrace::tracer {

// A host thread as the filter knows it: a small index (0: none, record everything) and how many
// events that may change its clock it has recorded.
struct HandOffThread {
  std::uint16_t index = 0;
  std::uint64_t clock_changes = 0;
};

class HandOffFilter {
public:
  // Whether to record `thread` releasing `object`; notes the release when it is recorded.
  bool release_carries_news(std::uint64_t object, HandOffThread thread);
  // Whether to record `thread` acquiring `object`.
  bool acquire_carries_news(std::uint64_t object, HandOffThread thread);

  // Numbers a recorded release of `object`, before the release itself, in the order the process
  // makes them (from 1), and keeps it as the object's last.
  std::uint64_t number_release(std::uint64_t object);
  // The number of the last recorded release of `object`, 0 when none is known.
  std::uint64_t last_release(std::uint64_t object);

private:
  static constexpr std::size_t kSlots = std::size_t{1} << 14;
  static constexpr std::size_t kProbes = 16;
  // The object's slot (kSlots: none); Claim takes a free one for it when it has none.
  enum class SlotLookup { Find, Claim };
  std::size_t slot_of(std::uint64_t object, SlotLookup lookup);

  std::array<std::atomic<std::uint64_t>, kSlots> objects_{};
  // Per slot: the last releaser's index, whether any other thread ever released the object, and
  // the last releaser's clock changes at that release (0: no release seen).
  std::array<std::atomic<std::uint64_t>, kSlots> stamps_{};
  std::array<std::atomic<std::uint64_t>, kSlots> last_releases_{};
  std::atomic<std::uint64_t> releases_{0};
};

} // namespace streamrace::tracer
