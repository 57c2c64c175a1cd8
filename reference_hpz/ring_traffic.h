// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bytes a collective moves inside nodes and across nodes. Ring collectives follow NCCL's ring
// in communicator rank order (rank r sends to r + 1 mod n): AllGather and ReduceScatter make
// every member send (n - 1) chunks to its successor. Counted for all ranks, so every rank reports
// the job's total.
#pragma once

#include <cstdint>
#include <vector>

namespace hpz {

struct RingTraffic {
  std::uint64_t insideNodes = 0;
  std::uint64_t acrossNodes = 0;

  // `memberNodes[i]` is the node of the communicator's i-th rank.
  void addRingCollective(const std::vector<int>& memberNodes, std::uint64_t chunkBytes) {
    const std::size_t members = memberNodes.size();
    for (std::size_t member = 0; member < members && members > 1; ++member) {
      const std::uint64_t sent = (members - 1) * chunkBytes;
      if (memberNodes[member] == memberNodes[(member + 1) % members]) {
        insideNodes += sent;
      } else {
        acrossNodes += sent;
      }
    }
  }

  // AlltoAll goes straight to each peer: every member sends `bytesPerPeer` to every other.
  void addAllToAll(const std::vector<int>& memberNodes, std::uint64_t bytesPerPeer) {
    for (std::size_t sender = 0; sender < memberNodes.size(); ++sender) {
      for (std::size_t receiver = 0; receiver < memberNodes.size(); ++receiver) {
        if (receiver == sender) {
          continue;
        }
        (memberNodes[sender] == memberNodes[receiver] ? insideNodes : acrossNodes) += bytesPerPeer;
      }
    }
  }

  RingTraffic& operator+=(const RingTraffic& other) {
    insideNodes += other.insideNodes;
    acrossNodes += other.acrossNodes;
    return *this;
  }
};

} // namespace hpz
