// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the program allocated: which memory an address is (device, pinned, managed, pool, or
// ordinary pageable host memory) — the synchronous-API rules depend on it — and the context a
// report gives for a racy byte (allocation, offset, where it was allocated and freed).
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/engine/free_list_resource.h"
#include "streamrace/engine/vector_clock.h"

#include <cstdint>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <unordered_map>
#include <vector>

namespace streamrace {

struct Allocation {
  Address base = 0;
  std::uint64_t size = 0;
  MemoryKind kind = MemoryKind::Device;
  DeviceId device = 0;
  RankId rank = 0;
  CallSiteId site = 0;
  NameId name = 0;
  bool freed = false;
  CallSiteId free_site = 0;
  // Where a stream-ordered allocation's life begins: accesses must be ordered after it.
  ActorId actor = 0;
  Epoch epoch = 0;

  bool contains(Address address) const { return address >= base && address - base < size; }
};

class AllocationTable {
public:
  explicit AllocationTable(std::size_t freed_kept = 4096) : freed_kept_(freed_kept) {}

  void add(std::uint32_t space, const Allocation& allocation);
  // Ends the life of the live allocation starting at `base`; returns it, or nothing when the
  // program frees a pointer it never allocated (or not at its start).
  std::optional<Allocation> release(std::uint32_t space, Address base, CallSiteId free_site);

  const Allocation* live_at(std::uint32_t space, Address address) const;
  // The live allocation holding `address`, else the most recently freed one that did.
  const Allocation* find(std::uint32_t space, Address address) const;
  MemoryKind kind_of(std::uint32_t space, Address address) const;
  void name(std::uint32_t space, Address base, NameId name);

private:
  using Map = std::pmr::map<Address, Allocation>;
  struct Space {
    explicit Space(std::pmr::memory_resource* pool) : live(pool) {}
    Map live;
    // The allocation added last: a pool allocation is usually freed before the next one, and
    // its free then finds it without a walk down the tree.
    Map::iterator newest = live.end();
    // The latest frees, a ring overwritten oldest first. Only a report looks an address up
    // in it, while every free adds to it: a scan of the ring on the rare lookup costs less
    // than keeping the frees sorted on every one. A range allocated again is not removed:
    // the live allocation answers for it first, and a later free of that one comes later in
    // the ring.
    std::vector<Allocation> freed;
    std::size_t next_freed = 0; // the slot the next free takes once the ring is full
  };
  static const Allocation* containing(const Map& map, Address address);
  Space& space(std::uint32_t id);

  // Pool allocations are born and freed all the time: their nodes come from a pool that
  // reuses memory instead of a malloc and a free per event.
  std::unique_ptr<FreeListResource> pool_ = std::make_unique<FreeListResource>();
  std::unordered_map<std::uint32_t, Space> spaces_;
  std::size_t freed_kept_;
};

} // namespace streamrace
