#include "streamrace/runtime/allocations.h"

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
  // A reused range is no longer described by what was freed there: the freed ranges that
  // start inside it and the one just before it, if it reaches in. An allocation past the
  // end of the last freed range (a pool handing out fresh addresses) has neither, known
  // without a walk down the tree.
  const Address end = allocation.base + allocation.size;
  const auto last_freed = space.freed.empty() ? space.freed.end() : std::prev(space.freed.end());
  if (last_freed != space.freed.end() &&
      last_freed->second.base + last_freed->second.size > allocation.base) {
    auto it = space.freed.lower_bound(allocation.base);
    if (it != space.freed.begin() && std::prev(it)->second.base + std::prev(it)->second.size >
                                         allocation.base)
      --it;
    while (it != space.freed.end() && it->first < end) it = space.freed.erase(it);
  }
  space.newest =
      space.live.insert_or_assign(end_hint(space.live, allocation.base), allocation.base, allocation);
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
  space.freed.insert_or_assign(end_hint(space.freed, base), base, allocation);
  space.freed_order.push_back(base);
  while (space.freed_order.size() > freed_kept_) {
    // The oldest is usually the lowest address too: erased without a walk.
    const Address oldest = space.freed_order.front();
    if (!space.freed.empty() && space.freed.begin()->first == oldest)
      space.freed.erase(space.freed.begin());
    else
      space.freed.erase(oldest);
    space.freed_order.pop_front();
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
  if (const Allocation* live = containing(found->second.live, address)) return live;
  return containing(found->second.freed, address);
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
