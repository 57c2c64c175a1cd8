#include "streamrace/runtime/shadow_memory.h"

#include <algorithm>
#include <iterator>

namespace streamrace {

void ShadowSpace::split_at(Address at) {
  auto it = segments_.upper_bound(at);
  if (it == segments_.begin()) return;
  --it;
  if (it->first < at && at < it->second.end) {
    Segment tail = it->second;
    it->second.end = at;
    reads_ += tail.reads.size();
    segments_.emplace_hint(std::next(it), at, std::move(tail));
  }
}

void ShadowSpace::check(const Segment& segment, Address begin, Address end,
                        const AccessRecord& access, const VectorClock& clock,
                        std::vector<Conflict>& conflicts) const {
  auto report = [&](const AccessRecord& previous) {
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
  };
  // Freed memory stays freed until an allocation takes it again: any access is a use after
  // free, ordered or not.
  if (segment.has_write && (segment.write.kind == OpKind::Free ||
                            !clock.covers(segment.write.actor, segment.write.epoch)))
    report(segment.write);
  if (access.writes())
    for (const AccessRecord& read : segment.reads)
      if (!clock.covers(read.actor, read.epoch)) report(read);
}

void ShadowSpace::record(Segment& segment, const AccessRecord& access) {
  segment.newest_op = access.op;
  if (access.writes()) {
    segment.has_write = true;
    segment.write = access;
    reads_ -= segment.reads.size();
    segment.reads.clear();
    return;
  }
  for (AccessRecord& read : segment.reads) {
    if (read.actor == access.actor) {
      read = access;
      return;
    }
  }
  segment.reads.push_back(access);
  ++reads_;
}

void ShadowSpace::coalesce(Address begin, Address end) {
  auto it = segments_.lower_bound(begin);
  if (it != segments_.begin()) --it;
  while (it != segments_.end() && it->first <= end) {
    auto next = std::next(it);
    if (next == segments_.end()) break;
    if (it->second.end == next->first && it->second.same_history(next->second)) {
      it->second.end = next->second.end;
      it->second.newest_op = std::max(it->second.newest_op, next->second.newest_op);
      reads_ -= next->second.reads.size();
      forget(next->first);
      segments_.erase(next);
      continue;
    }
    it = next;
  }
}

void ShadowSpace::apply(Address begin, std::uint64_t size, const AccessRecord& access,
                        const VectorClock& clock, std::vector<Conflict>& conflicts) {
  if (size == 0) return;
  const Address end = begin + size;

  // The common case: the access covers exactly one interval that history already has.
  auto cached = by_start_.find(begin);
  Map::iterator exact = cached != by_start_.end() ? cached->second : segments_.find(begin);
  if (exact != segments_.end() && exact->second.end == end) {
    if (cached == by_start_.end()) by_start_.emplace(begin, exact);
    check(exact->second, begin, end, access, clock, conflicts);
    record(exact->second, access);
    return;
  }

  split_at(begin);
  split_at(end);
  auto it = segments_.lower_bound(begin);
  Address cursor = begin;
  while (cursor < end) {
    if (it == segments_.end() || it->first > cursor) {
      const Address gap_end = it == segments_.end() ? end : std::min(end, it->first);
      Segment fresh;
      fresh.end = gap_end;
      record(fresh, access);
      it = std::next(segments_.emplace_hint(it, cursor, std::move(fresh)));
      cursor = gap_end;
      continue;
    }
    check(it->second, cursor, it->second.end, access, clock, conflicts);
    record(it->second, access);
    cursor = it->second.end;
    ++it;
  }
  coalesce(begin, end);
}

void ShadowSpace::reset(Address begin, std::uint64_t size, const AccessRecord* birth) {
  if (size == 0) return;
  const Address end = begin + size;
  split_at(begin);
  split_at(end);
  auto first = segments_.lower_bound(begin);
  auto last = segments_.lower_bound(end);
  for (auto it = first; it != last; ++it) {
    reads_ -= it->second.reads.size();
    forget(it->first);
  }
  auto hint = segments_.erase(first, last);
  if (!birth) return;
  Segment fresh;
  fresh.end = end;
  record(fresh, *birth);
  segments_.emplace_hint(hint, begin, std::move(fresh));
  coalesce(begin, end);
}

void ShadowSpace::evict_older_than(std::uint64_t threshold) {
  for (auto it = segments_.begin(); it != segments_.end();) {
    if (it->second.newest_op < threshold) {
      reads_ -= it->second.reads.size();
      forget(it->first);
      it = segments_.erase(it);
    } else {
      ++it;
    }
  }
}

void ShadowSpace::collect_ages(std::vector<std::uint64_t>& newest_ops) const {
  for (const auto& [start, segment] : segments_) newest_ops.push_back(segment.newest_op);
}

std::size_t ShadowMemory::approximate_bytes() const {
  // A map node carries three pointers and a colour beside its key and value.
  constexpr std::size_t node_overhead = 4 * sizeof(void*);
  std::size_t bytes = 0;
  for (const auto& [id, space] : spaces_) {
    bytes += space.segment_count() * (node_overhead + sizeof(Address) + sizeof(AccessRecord) +
                                      sizeof(std::vector<AccessRecord>) + 2 * sizeof(Address));
    bytes += space.read_count() * sizeof(AccessRecord);
    bytes += space.cached_count() * (node_overhead + sizeof(Address) + sizeof(void*));
  }
  return bytes;
}

void ShadowMemory::evict_older_than(std::uint64_t threshold) {
  for (auto& [id, space] : spaces_) space.evict_older_than(threshold);
}

std::uint64_t ShadowMemory::median_age() const {
  std::vector<std::uint64_t> ages;
  for (const auto& [id, space] : spaces_) space.collect_ages(ages);
  if (ages.empty()) return 0;
  auto middle = ages.begin() + static_cast<std::ptrdiff_t>(ages.size() / 2);
  std::nth_element(ages.begin(), middle, ages.end());
  return *middle;
}

} // namespace streamrace
