// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Memory for node-based containers whose nodes are born and die all the time (history
// intervals, allocations): freed nodes go on a free list and come back on the next
// allocation of the same size, so a steady state allocates nothing. Memory is returned when
// the resource dies; a capped history keeps the high-water mark bounded.
#pragma once

#include "streamrace/engine/prefetch.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <memory_resource>
#include <new>
#include <vector>

namespace streamrace {

class FreeListResource : public std::pmr::memory_resource {
public:
  FreeListResource() = default;
  FreeListResource(const FreeListResource&) = delete;
  FreeListResource& operator=(const FreeListResource&) = delete;

private:
  struct FreeNode {
    FreeNode* next;
  };
  static constexpr std::size_t kNodesPerSlab = 256;
  // Slabs start on a cache line: nodes whose size is a multiple of one (history intervals)
  // then each span the fewest lines they can.
  static constexpr std::align_val_t kSlabAlignment{64};
  struct SlabDelete {
    void operator()(std::byte* slab) const { ::operator delete(slab, kSlabAlignment); }
  };

  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (!pooled(bytes, alignment)) return ::operator new(bytes, std::align_val_t(alignment));
    if (free_) {
      FreeNode* node = free_;
      free_ = node->next;
      // Freed nodes wait cold, thousands at once after a history eviction: start fetching
      // the next one now, for the next split or insert to find it in cache.
      if (free_) prefetch(free_);
      return node;
    }
    if (slab_used_ == kNodesPerSlab) {
      const std::size_t slab_bytes = node_bytes_ * kNodesPerSlab;
      slabs_.emplace_back(static_cast<std::byte*>(::operator new(slab_bytes, kSlabAlignment)));
      slab_used_ = 0;
    }
    return slabs_.back().get() + node_bytes_ * slab_used_++;
  }
  void do_deallocate(void* pointer, std::size_t bytes, std::size_t alignment) override {
    if (!pooled(bytes, alignment)) {
      ::operator delete(pointer, std::align_val_t(alignment));
      return;
    }
    free_ = new (pointer) FreeNode{free_};
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  // The first allocation sizes the nodes (a container allocates one node type); anything
  // that fits is served from the slabs.
  bool pooled(std::size_t bytes, std::size_t alignment) {
    if (alignment > alignof(std::max_align_t)) return false;
    if (node_bytes_ == 0) {
      constexpr std::size_t align = alignof(std::max_align_t);
      node_bytes_ = (std::max(bytes, sizeof(FreeNode)) + align - 1) / align * align;
    }
    return bytes <= node_bytes_;
  }

  std::size_t node_bytes_ = 0; // the size of the first allocation: the container's node
  FreeNode* free_ = nullptr;
  std::vector<std::unique_ptr<std::byte, SlabDelete>> slabs_;
  std::size_t slab_used_ = kNodesPerSlab;
};

} // namespace streamrace
