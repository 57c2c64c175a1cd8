// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Shadow memory: for every byte range a program's async work touched, the last write and the
// reads since, as disjoint intervals per address space (a map: logarithmic lookup). An
// access is checked against the history it overlaps, then becomes part of it.
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/engine/free_list_resource.h"
#include "streamrace/engine/prefetch.h"
#include "streamrace/engine/vector_clock.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <memory_resource>
#include <unordered_map>
#include <vector>

namespace streamrace {

enum class OpKind : std::uint8_t {
  Copy,
  Set,
  Kernel,
  HostFunction,
  Collective,
  PointToPoint,
  HostAccess,
  Allocation, // the start of a stream-ordered (or any) allocation's life
  Free,       // the end of it: every later access is a use after free
};

// One access as history remembers it: enough to report it without any other table.
// What the ordering check reads (epoch, actor, kind) comes first: one cache line holds it.
inline constexpr std::uint8_t kBlockFreeDetail = 1;

struct AccessRecord {
  Epoch epoch = 0; // of its actor; every op ticks its actor first, so an op's epoch is never 0
  ActorId actor = 0;
  OpKind kind = OpKind::Copy;
  AccessMode mode = AccessMode::Read;
  Extent extent = Extent::Exact;
  std::uint8_t detail = 0; // CollectiveKind for collectives; whether a p2p call is a send;
                           // kBlockFreeDetail for the free of a caching-allocator block
  CallSiteId site = 0;
  std::uint32_t nvtx = 0; // NVTX range path of the enqueuing thread
  Address begin = 0;      // the whole access this record came from, not just the overlap
  std::uint64_t size = 0;
  std::uint64_t op = 0; // engine-wide sequence number of the op
  ThreadId thread = 0;  // host thread that enqueued the op

  bool writes() const { return mode != AccessMode::Read; }
  bool operator==(const AccessRecord&) const = default;
};

// A previous access that the current one is not ordered after, and the bytes they share.
struct Conflict {
  AccessRecord previous;
  Address overlap_begin = 0;
  std::uint64_t overlap_size = 0;
};

// The reads of an interval since its last write, at most one per actor (its latest). A read
// covers the bytes of the interval its own range does (less those a later overlay hides, see
// Segment): a read of part of an interval is kept whole instead of cutting the interval
// (tensor views would otherwise leave their tensors in pieces), unless the interval already
// holds a read by the same actor, whose bytes the latest read must cover to stand in for it.
// Nearly every interval has at most three readers: they live inline, more spill to the heap.
// (With two inline, one interval in nine of the benchmark's spilled, and each access to it
// paid a miss on its heap block.)
class ReadSet {
public:
  std::size_t size() const { return inline_count_ + spilled_.size(); }
  // Reads spill only once the inline slots are full, and leave them last.
  bool empty() const { return inline_count_ == 0; }
  std::size_t spilled() const { return spilled_.size(); }
  AccessRecord* find_actor(ActorId actor) {
    for (std::uint32_t i = 0; i < inline_count_; ++i)
      if (inline_[i].actor == actor) return &inline_[i];
    for (AccessRecord& read : spilled_)
      if (read.actor == actor) return &read;
    return nullptr;
  }
  // Returns whether the read spilled to the heap.
  bool push_back(const AccessRecord& read) {
    if (inline_count_ < kInline) {
      inline_[inline_count_++] = read;
      return false;
    }
    spilled_.push_back(read);
    return true;
  }
  // Returns how many of the reads dropped had spilled.
  std::size_t clear() {
    inline_count_ = 0;
    if (spilled_.empty()) return 0;
    const std::size_t spilled = spilled_.size();
    spilled_.clear();
    return spilled;
  }
  // Drops the reads `drop` selects; returns how many it dropped.
  template <typename Drop> std::size_t remove_if(Drop&& drop) {
    std::uint32_t kept = 0;
    for (std::uint32_t i = 0; i < inline_count_; ++i)
      if (!drop(inline_[i])) inline_[kept++] = inline_[i];
    const std::size_t dropped = inline_count_ - kept + std::erase_if(spilled_, drop);
    inline_count_ = kept;
    // Refill the inline slots first: they are where a lookup looks.
    while (inline_count_ < kInline && !spilled_.empty()) {
      inline_[inline_count_++] = spilled_.back();
      spilled_.pop_back();
    }
    return dropped;
  }
  template <typename Visit> void for_each(Visit&& visit) const {
    for (std::uint32_t i = 0; i < inline_count_; ++i)
      visit(inline_[i]);
    for (const AccessRecord& read : spilled_)
      visit(read);
  }
  bool operator==(const ReadSet& other) const;

private:
  static constexpr std::uint32_t kInline = 3;
  // The count first: a write that finds no reads to drop touches nothing else.
  std::uint32_t inline_count_ = 0;
  std::vector<AccessRecord> spilled_;
  std::array<AccessRecord, kInline> inline_{};
};

class ShadowSpace {
  struct Segment;
  // Nodes come from a pool: intervals split, merge and die all the time, and a pool turns
  // that into reuse of the same memory instead of a malloc and a free per change.
  using Map = std::pmr::map<Address, Segment>;

public:
  // A set of the lookup table (see slots_): the intervals two access starts hit last, each
  // with its start, so that finding the right one reads the set alone.
  struct Slot {
    Address start = 0;
    Map::iterator interval; // none when empty
  };
  struct SlotSet {
    std::array<Slot, 2> ways; // the most recently used first
  };
  static bool serves(const Slot& way, Address start) {
    return way.start == start && way.interval != Map::iterator{};
  }

  ShadowSpace();
  ShadowSpace(const ShadowSpace&) = delete;
  ShadowSpace& operator=(const ShadowSpace&) = delete;

  // Checks the access's bytes, [access.begin, access.begin + access.size), against their
  // history under `clock`, appends conflicts (one per previous access, however many intervals
  // it spans), then records the access.
  void apply(const AccessRecord& access, const VectorClock& clock,
             std::vector<Conflict>& conflicts);
  // Forgets the range's history (a new allocation) and, when given, starts it afresh with
  // `birth`: the point every later access must be ordered after.
  void reset(Address begin, std::uint64_t size, const AccessRecord* birth);

  // Replay knows the events ahead of the one it runs. Fetching the lookup slot of a later
  // access, then (a few events on) the interval the slot names, overlaps those cache misses
  // with the work in between instead of stalling on each in turn.
  // The table is looked up afresh by each stage: an access in between may have grown it.
  void prefetch_slot(Address begin) const { prefetch(&slots_[set_of(begin)]); }
  void prefetch_interval(Address begin) const {
    if (prefetch_serving(slots_[set_of(begin)], begin)) return;
    // A view starts inside an interval, where no slot serves it: the hint of its MiB names
    // the interval it found last, whose slot is warm if the tensor's own accesses use it.
    const Address hint = hints_[hint_of(begin)];
    if (hint != kNoHint) prefetch_serving(slots_[set_of(hint)], hint);
  }

  std::size_t segment_count() const { return segments_.size(); }
  // Walks the whole history: for tests, not for the hot path.
  std::size_t read_count() const;
  std::size_t lookup_slots() const { return slots_.size() * kWays; }
  std::size_t approximate_bytes() const;
  // Drops every interval whose newest access is older than op `threshold`.
  void evict_older_than(std::uint64_t threshold);
  void collect_ages(std::vector<std::uint64_t>& newest_ops) const;

private:
  // 360 bytes with its tree node: what the interval holds is derived from its records rather
  // than stored beside them.
  // A write of part of an interval (a kernel writing a view of its tensor) does not cut it:
  // it becomes the interval's overlay, the last write of the bytes its own range shares with
  // the interval, while `write` stays the last write of the other bytes. A read older than
  // the overlay keeps only its bytes outside it. Cutting cost two tree inserts per view, then
  // a walk over the pieces and a merge on the tensor's next accesses. An interval holds one
  // overlay: a second partial write that does not cover the first still cuts.
  struct Segment {
    Address end = 0;
    AccessRecord write;   // epoch 0 until the interval's first write
    AccessRecord overlay; // epoch 0 when none
    ReadSet reads;
    bool has_write() const { return write.epoch != 0; }
    bool has_overlay() const { return overlay.epoch != 0; }
    // The age eviction goes by: the op of the newest access the interval remembers.
    std::uint64_t newest_op() const {
      std::uint64_t newest = std::max(write.op, overlay.op);
      reads.for_each([&](const AccessRecord& read) { newest = std::max(newest, read.op); });
      return newest;
    }
    bool same_history(const Segment& other) const {
      return write == other.write && overlay == other.overlay && reads == other.reads;
    }
  };

  // The intervals accesses starting at `start` hit recently, by start, two per set: the
  // common access covers one whole interval that history already has, and finds it here
  // without a tree walk. A slot holds the start it serves beside the interval, so that
  // telling the ways apart touches no interval; a slot is emptied before its interval is
  // erased.
  // Two ways keep a tensor's slot when a short-lived allocation hashes to it: with a
  // direct-mapped table, two thirds of the benchmark's tree walks were such lost slots, each a
  // walk of a tree made deep by freed history.
  // The table starts at 2048 slots (32 KiB), which find the benchmark's 512 tensors per
  // process and leave the second level cache room for the intervals. A process with many
  // more live tensors misses its slots and walks the tree instead: when more than one access
  // in eight of a window (four accesses per slot) walks, the table grows to a slot per
  // interval.
  static constexpr std::size_t kWays = 2;
  static constexpr std::size_t kInitialSlots = 2048;
  static constexpr std::size_t kMaxSlots = std::size_t{1} << 18;
  static constexpr std::size_t kSlotsReviewedEvery = 4; // accesses per slot of the table
  // Fetches the lines of the interval a way of `set` names for `start`; returns whether one
  // did.
  static bool prefetch_serving(const SlotSet& set, Address start) {
    for (const Slot& way : set.ways) {
      if (!serves(way, start)) continue;
      // The lines a check and a record touch: the bounds, the last write, the reads.
      const char* node = reinterpret_cast<const char*>(&*way.interval);
      for (std::size_t line = 0; line < sizeof(Map::value_type); line += 64)
        prefetch(node + line);
      return true;
    }
    return false;
  }
  std::size_t set_of(Address start) const {
    return static_cast<std::size_t>((start * 0x9E3779B97F4A7C15ull) >> set_shift_);
  }
  // The slot naming the interval that starts at `start`, made the set's most recent; null
  // when the table does not know it.
  Map::iterator* find_slot(Address start);
  void remember(Map::iterator it);
  void review_slots();
  // An access inside an interval (a view of a tensor) starts where no interval does: it misses
  // its slot. Per MiB of addresses, the table remembers the start of the interval that last
  // held such an access, and finds that interval through its own slot instead of a walk.
  static constexpr Address kNoHint = ~Address{0};
  std::size_t hint_of(Address address) const {
    return static_cast<std::size_t>(((address >> 20) * 0x9E3779B97F4A7C15ull) >> hint_shift_);
  }
  // The interval holding `address`, else the first one after it.
  Map::iterator interval_at(Address address);
  // A view written into a tensor leaves it in pieces, and the next view often falls in a
  // neighbour of the piece the hint names. Within a few steps of `from`, in one direction,
  // what interval_at would return; else end(), for the caller to walk. A few steps cost less
  // than a walk from the root.
  static constexpr int kNeighbourSteps = 2;
  Map::iterator near(Map::iterator from, Address address);

  // Cuts the interval at `at`; returns the new interval that starts there. Each side keeps
  // the history of its own bytes.
  Map::iterator split(Map::iterator it, Address at);
  // Brings the interval [begin, segment.end) back to its plainest form after its bounds or its
  // overlay changed: an overlay that misses it is dropped, one that covers it becomes its
  // write, and reads left with no byte since the last write are dropped.
  void settle_history(Segment& segment, Address begin);
  // Whether a write of part of the interval starting at `begin` can be its overlay: the
  // interval has none, or the write covers the one it has.
  static bool can_overlay(const Segment& segment, Address begin, const AccessRecord& write);
  // The first interval that ends after `begin`, cut so that it does not start before it.
  Map::iterator first_from(Address begin);
  void check(const Segment& segment, Address begin, Address end, const AccessRecord& access,
             const VectorClock& clock, std::vector<Conflict>& conflicts) const;
  void check_overlaid(const Segment& segment, Address begin, Address end,
                      const AccessRecord& access, const VectorClock& clock,
                      std::vector<Conflict>& conflicts) const;
  void record(Address begin, Segment& segment, const AccessRecord& access);
  void drop_reads(Segment& segment);
  // Merges equal neighbours among the intervals [first, last] an access just recorded in.
  // Their neighbours outside cannot be equal to them: they lack the access's own record.
  void coalesce(Map::iterator first, Map::iterator last);
  Map::iterator erase(Map::iterator it);

  FreeListResource pool_;
  Map segments_{&pool_};
  std::vector<SlotSet> slots_ = std::vector<SlotSet>(kInitialSlots / kWays);
  std::vector<Address> hints_ = std::vector<Address>(kInitialSlots, kNoHint);
  unsigned set_shift_ = 64 - std::countr_zero(kInitialSlots / kWays);
  unsigned hint_shift_ = 64 - std::countr_zero(kInitialSlots);
  std::size_t accesses_until_review_ = kSlotsReviewedEvery * kInitialSlots;
  std::size_t window_walks_ = 0;
  std::size_t spilled_reads_ = 0;
};

// One ShadowSpace per address space (a process: ranks that share one share its memory).
class ShadowMemory {
public:
  ShadowSpace& space(std::uint32_t address_space) {
    // Replay numbers its processes 0, 1, 2, ...: a direct index, ranks interleave freely.
    if (address_space < by_id_.size() && by_id_[address_space]) return *by_id_[address_space];
    return add_space(address_space);
  }
  const ShadowSpace* find(std::uint32_t address_space) const {
    return address_space < by_id_.size() ? by_id_[address_space] : nullptr;
  }
  std::size_t approximate_bytes() const;
  void evict_older_than(std::uint64_t threshold);
  // The op number below which about half of all intervals' newest accesses lie.
  std::uint64_t median_age() const;

private:
  static constexpr std::uint32_t kDirectSpaces = 1024;
  ShadowSpace& add_space(std::uint32_t address_space);

  std::unordered_map<std::uint32_t, std::unique_ptr<ShadowSpace>> spaces_;
  std::vector<ShadowSpace*> by_id_; // ids below kDirectSpaces
};

} // namespace streamrace
