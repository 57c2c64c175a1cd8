// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Rule 12 of docs/semantics.md: which bytes an NCCL collective or send/recv reads and writes, from
// (count, datatype, nranks, rank, root). One place, so the engine, the analyzer and the tests
// agree.
#pragma once

#include "streamrace/engine/event.h"

#include <vector>

namespace streamrace {

// Accesses of one rank's part of a collective on a communicator of `nranks` where this rank is
// `comm_rank`. In-place forms (send inside recv) come out as a read and a write of the same op,
// which never conflict with each other.
void collective_accesses(const Collective& call, int nranks, int comm_rank,
                         std::vector<Access>& accesses);

std::vector<Access> point_to_point_accesses(const PointToPoint& call);

} // namespace streamrace
