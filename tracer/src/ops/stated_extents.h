// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Byte ranges a caller states through streamrace/op_extents.h, as the engine's accesses.
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/op_extents.h"

#include <cstddef>
#include <vector>

namespace streamrace::tracer {

// False (with `out` partly filled) for a null array with a count or an unknown mode.
bool read_stated_extents(const streamrace_extent* extents, std::size_t count,
                         std::vector<Access>& out);

} // namespace streamrace::tracer
