// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Findings as data: what went wrong, the two accesses, the memory, and the ordering that would
// fix it. Built from ids only; rendering (text, JSON, SARIF, ...) resolves names later.
#pragma once

#include "streamrace/engine/allocations.h"
#include "streamrace/engine/finding_kinds.h"
#include "streamrace/engine/shadow_memory.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace streamrace {

// One side of a finding: an access as history recorded it, plus where it ran.
struct AccessSide {
  AccessRecord access;
  RankId rank = 0;
  StreamHandle stream = 0; // 0 with on_host: the host thread itself
  bool on_host = false;
  DeviceId device = 0;
};

// What deduplication looks at of one side: its call site or, where that is unknown, where
// the access ran. The engine counts a repeated race from these alone.
struct SideIdentity {
  CallSiteId site = 0;
  RankId rank = 0;
  bool on_host = false;
  OpKind kind = OpKind::Copy;
  StreamHandle stream = 0;

  static SideIdentity of(const AccessSide& side) {
    return {side.access.site, side.rank, side.on_host, side.access.kind, side.stream};
  }
};

struct MemoryContext {
  std::uint32_t address_space = 0;
  Address overlap_begin = 0;
  std::uint64_t overlap_size = 0;
  std::optional<Allocation> allocation; // what holds the bytes, if the program allocated them
  CallSiteId reuse_site = 0; // BlockFreedInUse: where the block was handed out again, if it was
};

// The cheapest ordering that would have prevented the finding.
struct FixSuggestion {
  enum class Kind : std::uint8_t {
    None,
    RecordAndWait,   // record an event on `from` after op 1; `to` waits on it before op 2
    WaitOnExisting,  // `to` waits on `event`, already recorded on `from` after op 1
    HostSynchronize, // the host synchronizes `from` (or an event after op 1) before op 2
  };
  Kind kind = Kind::None;
  ActorId from = 0;
  ActorId to = 0;
  EventHandle event = 0;
};

struct UnrecordedWait {
  EventHandle event = 0;
  NameId event_name = 0;
  CallSiteId site = 0;
  StreamHandle stream = 0;
};

struct CollectiveCall {
  RankId rank = 0;
  std::int32_t comm_rank = 0;
  CallSiteId site = 0;
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::uint64_t count = 0;
  std::uint8_t datatype = 0;
  std::uint8_t reduce_op = 0;
  std::int32_t root = 0;
  bool operator==(const CollectiveCall& other) const {
    return kind == other.kind && count == other.count && datatype == other.datatype &&
           reduce_op == other.reduce_op && root == other.root;
  }
};

struct CollectiveDisagreement {
  CommKey comm = 0;
  std::uint64_t sequence = 0; // which call on the communicator (0-based)
  CollectiveCall first;
  CollectiveCall second;
  // For count mismatches: calls each rank of the communicator issued.
  std::vector<std::pair<std::int32_t, std::uint64_t>> calls_per_rank;
};

struct Finding {
  FindingKind kind = FindingKind::RaceWriteRead;
  AccessSide first;  // the earlier access (in the order the engine saw them)
  AccessSide second; // the access that completed the conflict
  MemoryContext memory;
  FixSuggestion fix;
  std::optional<UnrecordedWait> unrecorded_wait;
  std::optional<CollectiveDisagreement> collective;
  std::uint64_t count = 1;   // how many times this call-site pair conflicted
  std::vector<RankId> ranks; // every rank it was seen on
};

// Findings deduplicated by kind and call-site pair (or, where a site is unknown, by stream).
class FindingSet {
public:
  // Returns true when the finding is new rather than another occurrence of a known one.
  bool add(Finding finding);
  // Counts another occurrence when a race finding of this kind between these sides is known;
  // the engine calls it before it spends time on the finding's memory context and fix.
  bool count_again(FindingKind kind, const SideIdentity& first, const SideIdentity& second);
  // Where the block of BlockFreedInUse finding `index` was handed out again (kept once set).
  void set_reuse_site(std::size_t index, CallSiteId site);
  void add_occurrences(std::size_t index, std::uint64_t count, std::span<const RankId> ranks);
  const std::vector<Finding>& all() const { return findings_; }
  std::size_t size() const { return findings_.size(); }
  bool empty() const { return findings_.empty(); }

private:
  // Kind plus, per side, its call site (or, where unknown, rank, stream and op kind); for
  // collective findings the communicator and call number instead.
  struct Key {
    std::uint64_t kind = 0;
    std::uint64_t first = 0;
    std::uint64_t second = 0;
    std::uint64_t first_stream = 0;
    std::uint64_t second_stream = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::uint64_t h = k.kind;
      for (std::uint64_t part : {k.first, k.second, k.first_stream, k.second_stream})
        h = (h ^ part) * 0x100000001B3ull;
      return static_cast<std::size_t>(h);
    }
  };
  static Key key_of(const Finding& finding);
  static Key key_of(FindingKind kind, const SideIdentity& first, const SideIdentity& second);

  void add_ranks(std::size_t index, RankId first, RankId second);

  std::vector<Finding> findings_;
  std::vector<std::uint64_t> low_ranks_; // per finding: which ranks below 64 it lists
  std::unordered_map<Key, std::size_t, KeyHash> index_;
  // Per kind, the finding counted last: races repeat in runs, and a program with a write-read
  // race usually has its read-write twin, counted in turn.
  static constexpr std::size_t kNone = ~std::size_t{0};
  struct Recent {
    Key key;
    std::size_t index = kNone;
  };
  std::array<Recent, 8> recent_by_kind_;
};

} // namespace streamrace
