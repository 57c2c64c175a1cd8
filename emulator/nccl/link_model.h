// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How long a transfer would take on the emulated cluster, and how many bytes it puts on links
// inside a node and between nodes. Collectives follow NCCL's ring algorithm over ranks in rank
// order (rank r sends to rank r+1 mod n); AlltoAll, Gather, Scatter and Send/Recv go directly
// between the two ranks involved.
#pragma once

#include "operation.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace streamrace::emu::nccl {

struct LinkParameters {
  // NVLink-like inside a node; between nodes the 12.5 Gbit/s setup of the ZeRO++ paper.
  double intraNodeGbps = 1200.0;
  double intraNodeLatencyMicroseconds = 2.0;
  double interNodeGbps = 12.5;
  double interNodeLatencyMicroseconds = 5.0;
  // Multiplies every simulated duration: 0 disables the sleeps, 0.01 makes runs 100x faster.
  double timeScale = 1.0;

  // STREAMRACE_EMU_NCCL_{INTRA,INTER}_GBPS, STREAMRACE_EMU_NCCL_{INTRA,INTER}_LATENCY_US and
  // STREAMRACE_EMU_NCCL_TIME_SCALE override the defaults.
  static LinkParameters fromEnvironment();
};

// What one rank's part of one operation costs.
struct LinkTraffic {
  std::uint64_t intraNodeBytes = 0; // bytes this rank sends over links inside its node
  std::uint64_t interNodeBytes = 0; // bytes this rank sends to other nodes
  double seconds = 0;               // unscaled duration of the whole operation
};

// nodeOfRank[r] is the node rank r runs on. elementBytes = count * datatype size of the call.
LinkTraffic collectiveTraffic(const LinkParameters& parameters, CollectiveKind kind,
                              std::size_t elementBytes, int rank, int root,
                              std::span<const int> nodeOfRank);
LinkTraffic pointToPointTraffic(const LinkParameters& parameters, std::size_t bytes, int fromNode,
                                int toNode);

} // namespace streamrace::emu::nccl
