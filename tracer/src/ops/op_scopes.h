// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Ops a caller states (streamrace/op_extents.h, the Python package's dispatch mode): per thread,
// a stack of open ops, each with its name, the byte ranges its device work touches and the
// Python frames that issued it. Calls the thread makes inside an op are held until the op ends,
// because ranges known only then (a new output) apply to its launches too; then they go to the
// tracer in the order they were made.
#pragma once

#include "queue/captured_call.h"

#include "streamrace/engine/event.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

namespace streamrace::tracer {

class OpScopes {
public:
  // A stable copy of an op's name, the same view for the same text.
  static std::string_view intern_name(std::string_view name);

  // `python_stack` 0 in an open op: the enclosing op's.
  static void begin(std::string_view name, std::span<const Access> accesses,
                    std::uint32_t python_stack);
  static bool inside_op();
  // Opens a scope that only lends `python_stack` to the calls made in it: they keep their own
  // names and extents (a library call that issues device work outside any op, such as the end
  // of a coalesced block of collectives). `end` closes it.
  static void begin_python_lines(std::uint32_t python_stack);
  // Ends the thread's innermost op, `accesses` added to its ranges; false when none is open.
  // Blocks a caching allocator handed out inside the op were recorded with no size (the
  // allocator says only where); `blocks` (base, size) sizes those the op returned, and the
  // others (the op's own temporaries) are dropped. The op's calls go to the enclosing op, or to
  // the tracer when it was the outermost.
  static bool end(std::span<const Access> accesses,
                  std::span<const std::pair<Address, std::uint64_t>> blocks = {});
  // Holds `call` in the thread's innermost op, named and framed by it; false outside any op.
  static bool hold(CapturedCall& call);
};

} // namespace streamrace::tracer
