// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/allocations.h"

#include <iterator>

namespace streamrace {

namespace {

// Where `key` goes in `map`. Addresses mostly grow: past the last key the end is the place,
// found without a walk down the tree.
template <typename Map> typename Map::iterator end_hint(Map& map, Address key) {
  return map.empty() || std::prev(map.end())->first < key ? map.end() : map.lower_bound(key);
}

} // namespace

const Allocation* AllocationTable::containing(const Map& map, Address address) {
  auto it = map.upper_bound(address);
  if (it == map.begin()) return nullptr;
  --it;
  return it->second.contains(address) ? &it->second : nullptr;
}

AllocationTable::Space& AllocationTable::space(std::uint32_t id) {
  return spaces_.try_emplace(id, pool_.get()).first->second;
}

void AllocationTable::add(std::uint32_t space_id, const Allocation& allocation) {
  Space& space = this->space(space_id);
  space.newest = space.live.insert_or_assign(end_hint(space.live, allocation.base), allocation.base,
                                             allocation);
}

std::optional<Allocation> AllocationTable::release(std::uint32_t space_id, Address base,
                                                   CallSiteId free_site) {
  auto found = spaces_.find(space_id);
  if (found == spaces_.end()) return std::nullopt;
  Space& space = found->second;
  auto it = space.newest != space.live.end() && space.newest->first == base ? space.newest
                                                                            : space.live.find(base);
  if (it == space.live.end()) return std::nullopt;
  Allocation allocation = it->second;
  if (it == space.newest) space.newest = space.live.end();
  space.live.erase(it);
  allocation.freed = true;
  allocation.free_site = free_site;
  if (space.freed.size() < freed_kept_) {
    space.freed.push_back(allocation);
  } else if (freed_kept_ > 0) {
    space.freed[space.next_freed] = allocation;
    space.next_freed = (space.next_freed + 1) % freed_kept_;
  }
  return allocation;
}

const Allocation* AllocationTable::live_at(std::uint32_t space_id, Address address) const {
  auto found = spaces_.find(space_id);
  return found == spaces_.end() ? nullptr : containing(found->second.live, address);
}

const Allocation* AllocationTable::find(std::uint32_t space_id, Address address) const {
  auto found = spaces_.find(space_id);
  if (found == spaces_.end()) return nullptr;
  const Space& space = found->second;
  if (const Allocation* live = containing(space.live, address)) return live;
  // Newest first: the slots before next_freed, then the older ones after it.
  const std::size_t count = space.freed.size();
  for (std::size_t age = 1; age <= count; ++age) {
    const Allocation& freed = space.freed[(space.next_freed + count - age) % count];
    if (freed.contains(address)) return &freed;
  }
  return nullptr;
}

MemoryKind AllocationTable::kind_of(std::uint32_t space_id, Address address) const {
  const Allocation* allocation = live_at(space_id, address);
  return allocation ? allocation->kind : MemoryKind::Pageable;
}

void AllocationTable::name(std::uint32_t space_id, Address base, NameId name) {
  auto found = spaces_.find(space_id);
  if (found == spaces_.end()) return;
  auto it = found->second.live.upper_bound(base);
  if (it == found->second.live.begin()) return;
  --it;
  if (it->second.contains(base)) it->second.name = name;
}

} // namespace streamrace
