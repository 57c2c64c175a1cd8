// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ranks of a data-parallel job, as torchrun and mpirun-style launchers describe them
// (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), and the NCCL
// communicators (reference_hpz/README.md): WORLD, INTRA (the ranks of this rank's node) and INTER.
#pragma once

#include "cuda_resources.h"

#include <nccl.h>

namespace hpz {

struct RankLayout {
  int rank = 0;
  int worldSize = 1;
  int localRank = 0;
  int ranksPerNode = 1;

  int nodeOf(int someRank) const { return someRank / ranksPerNode; }
  int node() const { return nodeOf(rank); }

  // Throws when the variables are malformed or inconsistent.
  static RankLayout fromEnvironment();
};

// Rank 0 creates the id and serves it on MASTER_ADDR:MASTER_PORT; the others fetch it.
ncclUniqueId exchangeUniqueId(const RankLayout& layout);

struct Communicators {
  Communicator world;
  Communicator intraNode;
  // The ranks with this rank's local index on every node (qgZ's second hop); made on request.
  Communicator interNode;
};

Communicators createCommunicators(const RankLayout& layout, bool withInterNode);

} // namespace hpz
