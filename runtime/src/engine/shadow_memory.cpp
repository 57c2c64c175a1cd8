// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/shadow_memory.h"

#include <algorithm>
#include <iterator>

namespace streamrace {

namespace {

// The bytes an access range [begin, end) shares with a record's own range.
struct Span {
  Address begin = 0;
  Address end = 0;
  bool empty() const { return begin >= end; }
};
Span shared(Address begin, Address end, const AccessRecord& record) {
  return {std::max(begin, record.begin), std::min(end, record.begin + record.size)};
}
// The smallest span holding the bytes of `span` outside `hidden`: what one conflict reports.
Span outside(Span span, Span hidden) {
  if (hidden.empty() || hidden.end <= span.begin || hidden.begin >= span.end) return span;
  return {span.begin < hidden.begin ? span.begin : hidden.end,
          span.end > hidden.end ? span.end : hidden.begin};
}
// The bytes of [begin, end) for which `read` is still a read since the last write: a read
// older than the interval's overlay lost the bytes the overlay hides there.
Span still_read(const AccessRecord& read, Address begin, Address end, const AccessRecord& overlay,
                Span hidden) {
  const Span own = shared(begin, end, read);
  return read.op < overlay.op ? outside(own, hidden) : own;
}

} // namespace

bool ReadSet::operator==(const ReadSet& other) const {
  if (inline_count_ != other.inline_count_ || spilled_ != other.spilled_) return false;
  return std::equal(inline_.begin(), inline_.begin() + inline_count_, other.inline_.begin());
}

ShadowSpace::ShadowSpace() = default;

void ShadowSpace::review_slots() {
  const std::size_t slots = lookup_slots();
  const bool walking = window_walks_ > kSlotsReviewedEvery * slots / 8;
  window_walks_ = 0;
  if (!walking || slots >= segments_.size() || slots >= kMaxSlots) return;
  const std::size_t size = std::min(kMaxSlots, std::bit_ceil(segments_.size()));
  // Left for the accesses to fill: filling it from the tree would give the slots of the
  // tensors in use to whatever intervals come later in address order.
  slots_.assign(size / kWays, SlotSet{});
  hints_.assign(size, kNoHint);
  set_shift_ = 64 - static_cast<unsigned>(std::countr_zero(size / kWays));
  hint_shift_ = 64 - static_cast<unsigned>(std::countr_zero(size));
}

ShadowSpace::Map::iterator* ShadowSpace::find_slot(Address start) {
  auto& ways = slots_[set_of(start)].ways;
  if (serves(ways[0], start)) return &ways[0].interval;
  if (!serves(ways[1], start)) return nullptr;
  std::swap(ways[0], ways[1]);
  return &ways[0].interval;
}

void ShadowSpace::remember(Map::iterator it) {
  auto& ways = slots_[set_of(it->first)].ways;
  if (ways[0].interval == it) return;
  if (ways[1].interval != it) ways[1] = ways[0];
  ways[0] = {it->first, it};
}

std::size_t ShadowSpace::read_count() const {
  std::size_t reads = 0;
  for (const auto& [start, segment] : segments_)
    reads += segment.reads.size();
  return reads;
}

ShadowSpace::Map::iterator ShadowSpace::erase(Map::iterator it) {
  for (Slot& way : slots_[set_of(it->first)].ways)
    if (way.interval == it) way = {};
  spilled_reads_ -= it->second.reads.spilled();
  return segments_.erase(it);
}

ShadowSpace::Map::iterator ShadowSpace::split(Map::iterator it, Address at) {
  // The tail is built in its node straight from the head: one copy of the history. The head
  // itself is the hint: a hint after the new key costs the tree a step back to the head, and
  // a step across a tree made of cold nodes is a miss.
  auto tail = segments_.emplace_hint(it, at, it->second);
  it->second.end = at;
  spilled_reads_ += tail->second.reads.spilled();
  settle_history(it->second, it->first);
  settle_history(tail->second, at);
  return tail;
}

void ShadowSpace::settle_history(Segment& segment, Address begin) {
  const Address end = segment.end;
  Span hidden;
  if (segment.has_overlay()) {
    hidden = shared(begin, end, segment.overlay);
    if (hidden.empty()) {
      segment.overlay = {};
    } else if (hidden.begin == begin && hidden.end == end) {
      segment.write = segment.overlay;
      segment.overlay = {};
      hidden = {};
    }
  }
  if (segment.reads.empty()) return;
  const std::size_t spilled = segment.reads.spilled();
  segment.reads.remove_if([&](const AccessRecord& read) {
    if (read.op < segment.write.op) return true; // the overlay that hid it became the write
    return still_read(read, begin, end, segment.overlay, hidden).empty();
  });
  spilled_reads_ -= spilled - segment.reads.spilled();
}

bool ShadowSpace::can_overlay(const Segment& segment, Address begin, const AccessRecord& write) {
  if (!segment.has_overlay()) return true;
  const Span hidden = shared(begin, segment.end, segment.overlay);
  return write.begin <= hidden.begin && write.begin + write.size >= hidden.end;
}

ShadowSpace::Map::iterator ShadowSpace::interval_at(Address address) {
  Address& hint = hints_[hint_of(address)];
  auto it = segments_.end();
  if (Map::iterator* holder = hint != kNoHint ? find_slot(hint) : nullptr)
    it = near(*holder, address);
  if (it == segments_.end()) {
    it = segments_.lower_bound(address);
    if ((it == segments_.end() || it->first > address) && it != segments_.begin()) {
      if (auto before = std::prev(it); before->second.end > address) it = before;
    }
  }
  if (it != segments_.end() && it->first < address) {
    hint = it->first;
    remember(it);
  }
  return it;
}

ShadowSpace::Map::iterator ShadowSpace::near(Map::iterator from, Address address) {
  const bool forward = from->first <= address;
  for (int step = 0; step <= kNeighbourSteps; ++step) {
    if (from->first <= address) {
      if (address < from->second.end) return from;
      // Stepping forward past `address`: it lies in a gap, and `from` comes first after it.
      if (!forward) return std::next(from);
      if (++from == segments_.end()) break;
      if (from->first > address) return from;
    } else {
      if (forward || from == segments_.begin()) break;
      --from;
    }
  }
  return segments_.end();
}

ShadowSpace::Map::iterator ShadowSpace::first_from(Address begin) {
  // A pool handing out fresh addresses allocates past all history: found without a walk.
  if (segments_.empty() || std::prev(segments_.end())->second.end <= begin) return segments_.end();
  const auto it = interval_at(begin);
  return it != segments_.end() && it->first < begin ? split(it, begin) : it;
}

namespace {

// Out of line: most accesses conflict with nothing, and the check that finds that out stays
// small enough to inline.
[[gnu::noinline]] void add_conflict(std::vector<Conflict>& conflicts, const AccessRecord& previous,
                                    Address begin, Address end) {
  for (Conflict& known : conflicts) {
    if (known.previous.op == previous.op && known.previous.actor == previous.actor) {
      const Address lo = std::min(known.overlap_begin, begin);
      const Address hi = std::max(known.overlap_begin + known.overlap_size, end);
      known.overlap_begin = lo;
      known.overlap_size = hi - lo;
      return;
    }
  }
  conflicts.push_back({previous, begin, end - begin});
}

// Freed memory stays freed until an allocation takes it again: any access is a use after
// free, ordered or not.
void check_write(const AccessRecord& write, Span span, const VectorClock& clock,
                 std::vector<Conflict>& conflicts) {
  if (!span.empty() && (write.kind == OpKind::Free || !clock.covers(write.actor, write.epoch)))
    add_conflict(conflicts, write, span.begin, span.end);
}

} // namespace

// Out of line: few intervals hold an overlay, and the check of the others stays small enough
// to inline.
[[gnu::noinline]] void ShadowSpace::check_overlaid(const Segment& segment, Address begin,
                                                   Address end, const AccessRecord& access,
                                                   const VectorClock& clock,
                                                   std::vector<Conflict>& conflicts) const {
  const Span hidden = shared(begin, end, segment.overlay);
  check_write(segment.overlay, hidden, clock, conflicts);
  if (segment.has_write())
    check_write(segment.write, outside({begin, end}, hidden), clock, conflicts);
  if (access.writes() && !segment.reads.empty())
    segment.reads.for_each([&](const AccessRecord& read) {
      const Span own = still_read(read, begin, end, segment.overlay, hidden);
      if (!own.empty() && !clock.covers(read.actor, read.epoch))
        add_conflict(conflicts, read, own.begin, own.end);
    });
}

inline void ShadowSpace::check(const Segment& segment, Address begin, Address end,
                               const AccessRecord& access, const VectorClock& clock,
                               std::vector<Conflict>& conflicts) const {
  if (segment.has_overlay()) [[unlikely]] {
    check_overlaid(segment, begin, end, access, clock, conflicts);
    return;
  }
  if (segment.has_write()) check_write(segment.write, {begin, end}, clock, conflicts);
  if (access.writes() && !segment.reads.empty())
    segment.reads.for_each([&](const AccessRecord& read) {
      const Span own = shared(begin, end, read);
      if (!own.empty() && !clock.covers(read.actor, read.epoch))
        add_conflict(conflicts, read, own.begin, own.end);
    });
}

inline void ShadowSpace::drop_reads(Segment& segment) {
  if (segment.reads.empty()) return;
  spilled_reads_ -= segment.reads.clear();
}

inline void ShadowSpace::record(Address begin, Segment& segment, const AccessRecord& access) {
  if (access.writes()) {
    if (access.begin <= begin && access.begin + access.size >= segment.end) [[likely]] {
      segment.write = access;
      segment.overlay = {};
      drop_reads(segment);
    } else {
      segment.overlay = access;
      settle_history(segment, begin);
    }
    return;
  }
  if (AccessRecord* same_actor = segment.reads.find_actor(access.actor)) {
    *same_actor = access;
    return;
  }
  spilled_reads_ += segment.reads.push_back(access) ? 1 : 0;
}

void ShadowSpace::coalesce(Map::iterator first, Map::iterator last) {
  for (auto it = first; it != last;) {
    const auto next = std::next(it);
    if (it->second.end != next->first || !it->second.same_history(next->second)) {
      it = next;
      continue;
    }
    it->second.end = next->second.end;
    const bool was_last = next == last;
    erase(next);
    if (was_last) return;
  }
}

void ShadowSpace::apply(const AccessRecord& access, const VectorClock& clock,
                        std::vector<Conflict>& conflicts) {
  if (access.size == 0) return;
  const Address begin = access.begin;
  const Address end = begin + access.size;

  if (--accesses_until_review_ == 0) {
    review_slots();
    accesses_until_review_ = kSlotsReviewedEvery * lookup_slots();
  }
  // The common case: the access covers exactly one interval that history already has.
  Map::iterator* slot = find_slot(begin);
  if (slot && (*slot)->second.end == end) [[likely]] {
    check((*slot)->second, begin, end, access, clock, conflicts);
    record(begin, (*slot)->second, access);
    return;
  }
  window_walks_ += !slot;
  auto it = slot ? *slot : interval_at(begin);
  if (it != segments_.end() && it->first == begin && it->second.end == end) {
    remember(it);
    check(it->second, begin, end, access, clock, conflicts);
    record(begin, it->second, access);
    return;
  }

  // Visit the intervals in order from the one holding `begin`, filling gaps; an interval that
  // straddles either end is cut there, except for a read the interval can keep whole or a
  // write it can take as its overlay.
  auto first = segments_.end();
  for (Address cursor = begin;; ++it) {
    if (it == segments_.end() || it->first > cursor) {
      Segment gap;
      gap.end = it == segments_.end() ? end : std::min(end, it->first);
      it = segments_.emplace_hint(it, cursor, std::move(gap));
    } else if (it->first < cursor || it->second.end > end) {
      if (access.writes() ? !can_overlay(it->second, it->first, access)
                          : it->second.reads.find_actor(access.actor) != nullptr) {
        if (it->first < cursor) it = split(it, cursor);
        if (it->second.end > end) split(it, end);
      }
      check(it->second, cursor, std::min(end, it->second.end), access, clock, conflicts);
    } else {
      check(it->second, cursor, it->second.end, access, clock, conflicts);
    }
    if (first == segments_.end()) first = it;
    record(it->first, it->second, access);
    cursor = std::min(end, it->second.end);
    // Not a step further: the interval after the last one is a cold node.
    if (cursor == end) break;
  }
  if (first != it) coalesce(first, it);
}

void ShadowSpace::reset(Address begin, std::uint64_t size, const AccessRecord* birth) {
  if (size == 0) return;
  const Address end = begin + size;
  auto it = first_from(begin);
  while (it != segments_.end() && it->first < end) {
    if (it->second.end > end) split(it, end);
    it = erase(it);
  }
  if (!birth) return;
  // No neighbour can share the birth's history (it is a new op): nothing to coalesce.
  Segment fresh;
  fresh.end = end;
  fresh.write = *birth;
  // The allocation's first use starts where it does: let it find the interval at once.
  remember(segments_.emplace_hint(it, begin, std::move(fresh)));
}

void ShadowSpace::evict_older_than(std::uint64_t threshold) {
  for (auto it = segments_.begin(); it != segments_.end();)
    it = it->second.newest_op() < threshold ? erase(it) : std::next(it);
}

void ShadowSpace::collect_ages(std::vector<std::uint64_t>& newest_ops) const {
  for (const auto& [start, segment] : segments_)
    newest_ops.push_back(segment.newest_op());
}

std::size_t ShadowSpace::approximate_bytes() const {
  // A map node carries three pointers and a colour beside its key and value.
  constexpr std::size_t node_overhead = 4 * sizeof(void*);
  return slots_.capacity() * sizeof(SlotSet) + hints_.capacity() * sizeof(Address) +
         segments_.size() * (node_overhead + sizeof(Address) + sizeof(Segment)) +
         spilled_reads_ * sizeof(AccessRecord);
}

ShadowSpace& ShadowMemory::add_space(std::uint32_t address_space) {
  std::unique_ptr<ShadowSpace>& space = spaces_[address_space];
  if (!space) space = std::make_unique<ShadowSpace>();
  if (address_space < kDirectSpaces) {
    if (address_space >= by_id_.size()) by_id_.resize(address_space + 1, nullptr);
    by_id_[address_space] = space.get();
  }
  return *space;
}

std::size_t ShadowMemory::approximate_bytes() const {
  std::size_t bytes = 0;
  for (const auto& [id, space] : spaces_)
    bytes += space->approximate_bytes();
  return bytes;
}

void ShadowMemory::evict_older_than(std::uint64_t threshold) {
  for (auto& [id, space] : spaces_)
    space->evict_older_than(threshold);
}

std::uint64_t ShadowMemory::median_age() const {
  std::vector<std::uint64_t> ages;
  for (const auto& [id, space] : spaces_)
    space->collect_ages(ages);
  if (ages.empty()) return 0;
  auto middle = ages.begin() + static_cast<std::ptrdiff_t>(ages.size() / 2);
  std::nth_element(ages.begin(), middle, ages.end());
  return *middle;
}

} // namespace streamrace
