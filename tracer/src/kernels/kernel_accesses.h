// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Turns the pointers a kernel launch passed into accesses, on the tracer thread, where the
// program's allocations are known in the order the engine sees them: a pointer inside a live
// allocation becomes an access from the pointer to its extent, at most to the allocation's end;
// pointers to anything else (host memory, values that only look like addresses) are dropped.
// Inside a caching allocator's segment (PyTorch's), one device allocation holds many tensors'
// blocks: a pointer with no stated extent then reaches at most the end of its block, and never
// into the next block, since a kernel handed one tensor has no business in another's.
#pragma once

#include "kernels/kernel_rules.h"

#include "streamrace/engine/event.h"

#include <map>
#include <span>
#include <vector>

namespace streamrace::tracer {

class KernelAccessResolver {
public:
  // Follows allocations, caching-allocator blocks and their frees; every other event changes
  // nothing.
  void observe(const Payload& payload);
  void resolve(std::span<const KernelPointer> pointers, std::vector<Access>& out) const;

private:
  // The end of the block `address` lies in, or else the start of the next block: the furthest a
  // pointer with no stated extent reaches inside a segment.
  Address block_limit(Address address, Address allocation_end) const;

  std::map<Address, std::uint64_t> live_;   // base -> size
  std::map<Address, std::uint64_t> blocks_; // base -> size, caching-allocator blocks
};

} // namespace streamrace::tracer
