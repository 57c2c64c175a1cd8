// Shadow memory: for every byte range a program's async work touched, the last write and the
// reads since, as disjoint intervals per address space (std::map: logarithmic lookup). An
// access is checked against the history it overlaps, then becomes part of it.
#pragma once

#include "streamrace/runtime/event.h"
#include "streamrace/runtime/vector_clock.h"

#include <cstdint>
#include <map>
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
struct AccessRecord {
  Epoch epoch = 0;
  Address begin = 0; // the whole access this record came from, not just the overlap
  std::uint64_t size = 0;
  std::uint64_t op = 0; // engine-wide sequence number of the op
  ThreadId thread = 0;  // host thread that enqueued the op
  ActorId actor = 0;
  CallSiteId site = 0;
  std::uint32_t nvtx = 0; // NVTX range path of the enqueuing thread
  OpKind kind = OpKind::Copy;
  AccessMode mode = AccessMode::Read;
  Extent extent = Extent::Exact;
  std::uint8_t detail = 0; // CollectiveKind for collectives; whether a p2p call is a send

  bool writes() const { return mode != AccessMode::Read; }
  bool operator==(const AccessRecord&) const = default;
};

// A previous access that the current one is not ordered after, and the bytes they share.
struct Conflict {
  AccessRecord previous;
  Address overlap_begin = 0;
  std::uint64_t overlap_size = 0;
};

class ShadowSpace {
public:
  // Checks [begin, begin+size) against its history under `clock`, appends conflicts (one per
  // previous access, however many intervals it spans), then records `access`.
  void apply(Address begin, std::uint64_t size, const AccessRecord& access,
             const VectorClock& clock, std::vector<Conflict>& conflicts);
  // Forgets the range's history (a new allocation) and, when given, starts it afresh with
  // `birth`: the point every later access must be ordered after.
  void reset(Address begin, std::uint64_t size, const AccessRecord* birth);

  std::size_t segment_count() const { return segments_.size(); }
  std::size_t read_count() const { return reads_; }
  std::size_t cached_count() const { return by_start_.size(); }
  // Drops every interval whose newest access is older than op `threshold`.
  void evict_older_than(std::uint64_t threshold);
  void collect_ages(std::vector<std::uint64_t>& newest_ops) const;

private:
  struct Segment {
    Address end = 0;
    bool has_write = false;
    AccessRecord write;
    std::vector<AccessRecord> reads; // at most one per actor: its latest read
    std::uint64_t newest_op = 0;
    bool same_history(const Segment& other) const {
      return has_write == other.has_write && (!has_write || write == other.write) &&
             reads == other.reads;
    }
  };
  using Map = std::map<Address, Segment>;

  void split_at(Address at);
  void check(const Segment& segment, Address begin, Address end, const AccessRecord& access,
             const VectorClock& clock, std::vector<Conflict>& conflicts) const;
  void record(Segment& segment, const AccessRecord& access);
  void coalesce(Address begin, Address end);

  // Forgets the cached iterator of the interval starting at `start` before it is erased.
  void forget(Address start) { by_start_.erase(start); }

  Map segments_;
  // Intervals by their start, for the common case of an access that covers one whole
  // interval: a hash lookup instead of a tree walk. Filled on use, emptied on erase.
  std::unordered_map<Address, Map::iterator> by_start_;
  std::size_t reads_ = 0;
};

// One ShadowSpace per address space (a process: ranks that share one share its memory).
class ShadowMemory {
public:
  ShadowSpace& space(std::uint32_t address_space) {
    if (!last_space_ || last_space_id_ != address_space) {
      last_space_ = &spaces_[address_space];
      last_space_id_ = address_space;
    }
    return *last_space_;
  }
  std::size_t approximate_bytes() const;
  void evict_older_than(std::uint64_t threshold);
  // The op number below which about half of all intervals' newest accesses lie.
  std::uint64_t median_age() const;

private:
  std::unordered_map<std::uint32_t, ShadowSpace> spaces_;
  ShadowSpace* last_space_ = nullptr; // ops arrive in runs from one process
  std::uint32_t last_space_id_ = 0;
};

} // namespace streamrace
