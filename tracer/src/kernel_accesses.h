// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Turns the pointers a kernel launch passed into accesses, on the tracer thread, where the
// program's allocations are known in the order the engine sees them: a pointer inside a live
// allocation becomes an access from the pointer to its extent, at most to the allocation's end;
// pointers to anything else (host memory, values that only look like addresses) are dropped.
#pragma once

#include "kernel_rules.h"

#include "streamrace/engine/event.h"

#include <map>
#include <span>
#include <vector>

namespace streamrace::tracer {

class KernelAccessResolver {
public:
  // Follows allocations and frees; every other event changes nothing.
  void observe(const Payload& payload);
  void resolve(std::span<const KernelPointer> pointers, std::vector<Access>& out) const;

private:
  std::map<Address, std::uint64_t> live_; // base -> size
};

} // namespace streamrace::tracer
