// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_threads/hand_off_filter.h"

namespace streamrace::tracer {

namespace {

// A stamp: releaser index in the top 16 bits, then a "released by several threads" bit, then the
// releaser's clock changes (47 bits, so that a stamp of a real release is never 0).
constexpr unsigned kIndexShift = 48;
constexpr std::uint64_t kShared = std::uint64_t{1} << 47;
constexpr std::uint64_t kChangesMask = kShared - 1;

std::uint64_t stamp(HandOffThread thread, bool shared) {
  return std::uint64_t{thread.index} << kIndexShift | (shared ? kShared : 0) |
         ((thread.clock_changes + 1) & kChangesMask);
}

std::uint16_t releaser(std::uint64_t stamp) {
  return static_cast<std::uint16_t>(stamp >> kIndexShift);
}

std::size_t home_slot(std::uint64_t object, std::size_t slots) {
  object ^= object >> 33;
  object *= 0xff51afd7ed558ccdull;
  object ^= object >> 33;
  return static_cast<std::size_t>(object) & (slots - 1);
}

} // namespace

std::size_t HandOffFilter::slot_of(std::uint64_t object, SlotLookup lookup) {
  const std::size_t home = home_slot(object, kSlots);
  for (std::size_t probe = 0; probe < kProbes; ++probe) {
    const std::size_t slot = (home + probe) & (kSlots - 1);
    std::uint64_t key = objects_[slot].load(std::memory_order_acquire);
    if (key == 0 && lookup == SlotLookup::Claim &&
        objects_[slot].compare_exchange_strong(key, object, std::memory_order_acq_rel))
      return slot;
    if (key == object) return slot;
    if (key == 0) return kSlots;
  }
  return kSlots;
}

bool HandOffFilter::release_carries_news(std::uint64_t object, HandOffThread thread) {
  if (thread.index == 0 || object == 0) return true;
  const std::size_t slot = slot_of(object, SlotLookup::Claim);
  if (slot == kSlots) return true;
  std::uint64_t seen = stamps_[slot].load(std::memory_order_acquire);
  for (;;) {
    const bool mine = seen != 0 && releaser(seen) == thread.index;
    if (mine && (seen & kChangesMask) == ((thread.clock_changes + 1) & kChangesMask)) return false;
    const bool shared = seen != 0 && (!mine || (seen & kShared) != 0);
    if (stamps_[slot].compare_exchange_weak(seen, stamp(thread, shared), std::memory_order_acq_rel))
      return true;
  }
}

bool HandOffFilter::acquire_carries_news(std::uint64_t object, HandOffThread thread) {
  if (thread.index == 0 || object == 0) return true;
  const std::size_t slot = slot_of(object, SlotLookup::Find);
  if (slot == kSlots) return true;
  const std::uint64_t seen = stamps_[slot].load(std::memory_order_acquire);
  return seen == 0 || releaser(seen) != thread.index || (seen & kShared) != 0;
}

std::uint64_t HandOffFilter::number_release(std::uint64_t object) {
  const std::uint64_t number = releases_.fetch_add(1, std::memory_order_relaxed) + 1;
  const std::size_t slot = slot_of(object, SlotLookup::Claim);
  if (slot == kSlots) return number;
  // Two threads releasing at once may store out of order: the later number stays.
  std::uint64_t kept = last_releases_[slot].load(std::memory_order_relaxed);
  while (kept < number &&
         !last_releases_[slot].compare_exchange_weak(kept, number, std::memory_order_release)) {
  }
  return number;
}

std::uint64_t HandOffFilter::last_release(std::uint64_t object) {
  const std::size_t slot = slot_of(object, SlotLookup::Find);
  return slot == kSlots ? 0 : last_releases_[slot].load(std::memory_order_acquire);
}

} // namespace streamrace::tracer
