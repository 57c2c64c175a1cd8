// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "link_model.h"

#include "settings.h"

#include <algorithm>

namespace streamrace::emu::nccl {
namespace {

double transferSeconds(double bytes, double gbps) {
  return bytes * 8.0 / (gbps * 1e9);
}

void addBytes(LinkTraffic& traffic, bool crossesNodes, std::uint64_t bytes) {
  (crossesNodes ? traffic.interNodeBytes : traffic.intraNodeBytes) += bytes;
}

} // namespace

LinkParameters LinkParameters::fromEnvironment() {
  LinkParameters defaults;
  LinkParameters parameters;
  parameters.intraNodeGbps = settingNumber(Setting::NcclIntraGbps, defaults.intraNodeGbps);
  parameters.intraNodeLatencyMicroseconds =
      settingNumber(Setting::NcclIntraLatencyUs, defaults.intraNodeLatencyMicroseconds);
  parameters.interNodeGbps = settingNumber(Setting::NcclInterGbps, defaults.interNodeGbps);
  parameters.interNodeLatencyMicroseconds =
      settingNumber(Setting::NcclInterLatencyUs, defaults.interNodeLatencyMicroseconds);
  parameters.timeScale = settingNumber(Setting::NcclTimeScale, defaults.timeScale);
  if (parameters.intraNodeGbps <= 0) {
    parameters.intraNodeGbps = defaults.intraNodeGbps;
  }
  if (parameters.interNodeGbps <= 0) {
    parameters.interNodeGbps = defaults.interNodeGbps;
  }
  return parameters;
}

LinkTraffic collectiveTraffic(const LinkParameters& parameters, CollectiveKind kind,
                              std::size_t elementBytes, int rank, int root,
                              std::span<const int> nodeOfRank) {
  const int ranks = static_cast<int>(nodeOfRank.size());
  LinkTraffic traffic;
  if (ranks <= 1) {
    return traffic;
  }
  const std::uint64_t size = elementBytes;
  const auto n = static_cast<std::uint64_t>(ranks);
  const int next = (rank + 1) % ranks;
  const bool sendCrossesNodes = nodeOfRank[rank] != nodeOfRank[next];
  bool ringCrossesNodes = false;
  for (int r = 0; r < ranks; ++r) {
    ringCrossesNodes = ringCrossesNodes || nodeOfRank[r] != nodeOfRank[(r + 1) % ranks];
  }
  const double ringGbps = ringCrossesNodes ? parameters.interNodeGbps : parameters.intraNodeGbps;
  const double ringLatency = 1e-6 * (ringCrossesNodes ? parameters.interNodeLatencyMicroseconds
                                                      : parameters.intraNodeLatencyMicroseconds);
  // Ring collectives move the same bytes over every link in lockstep, so the slowest link in the
  // ring sets the pace: steps * latency + bytes per link / bandwidth.
  auto ring = [&](std::uint64_t bytesPerRank, std::uint64_t steps, bool thisRankSends) {
    if (thisRankSends) {
      addBytes(traffic, sendCrossesNodes, bytesPerRank);
    }
    traffic.seconds = static_cast<double>(steps) * ringLatency +
                      transferSeconds(static_cast<double>(bytesPerRank), ringGbps);
  };
  // Direct patterns: each rank drives its own transfers; the operation lasts as long as the
  // busiest sender, one latency plus its bytes over each kind of link.
  auto direct = [&](auto sends) {
    double busiest = 0;
    for (int sender = 0; sender < ranks; ++sender) {
      LinkTraffic senderTraffic;
      sends(sender, [&](int receiver) {
        addBytes(senderTraffic, nodeOfRank[sender] != nodeOfRank[receiver], size);
      });
      double seconds = transferSeconds(static_cast<double>(senderTraffic.intraNodeBytes),
                                       parameters.intraNodeGbps) +
                       transferSeconds(static_cast<double>(senderTraffic.interNodeBytes),
                                       parameters.interNodeGbps);
      if (senderTraffic.interNodeBytes > 0) {
        seconds += 1e-6 * parameters.interNodeLatencyMicroseconds;
      } else if (senderTraffic.intraNodeBytes > 0) {
        seconds += 1e-6 * parameters.intraNodeLatencyMicroseconds;
      }
      busiest = std::max(busiest, seconds);
      if (sender == rank) {
        traffic.intraNodeBytes = senderTraffic.intraNodeBytes;
        traffic.interNodeBytes = senderTraffic.interNodeBytes;
      }
    }
    traffic.seconds = busiest;
  };
  switch (kind) {
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
    ring((n - 1) * size, n - 1, true);
    break;
  case CollectiveKind::AllReduce:
    // Reduce-scatter then all-gather, each over chunks of size / n.
    ring(2 * (n - 1) * size / n, 2 * (n - 1), true);
    break;
  case CollectiveKind::Broadcast:
    // A pipelined chain starting at the root: everyone forwards except the root's predecessor.
    ring(size, n - 1, next != root);
    break;
  case CollectiveKind::Reduce:
    // The chain ends at the root, which forwards nothing.
    ring(size, n - 1, rank != root);
    break;
  case CollectiveKind::AllToAll:
    direct([&](int sender, auto send) {
      for (int receiver = 0; receiver < ranks; ++receiver) {
        if (receiver != sender) {
          send(receiver);
        }
      }
    });
    break;
  case CollectiveKind::Gather:
    direct([&](int sender, auto send) {
      if (sender != root) {
        send(root);
      }
    });
    break;
  case CollectiveKind::Scatter:
    direct([&](int sender, auto send) {
      if (sender == root) {
        for (int receiver = 0; receiver < ranks; ++receiver) {
          if (receiver != root) {
            send(receiver);
          }
        }
      }
    });
    break;
  }
  return traffic;
}

LinkTraffic pointToPointTraffic(const LinkParameters& parameters, std::size_t bytes, int fromNode,
                                int toNode) {
  LinkTraffic traffic;
  const bool crossesNodes = fromNode != toNode;
  addBytes(traffic, crossesNodes, bytes);
  traffic.seconds =
      1e-6 * (crossesNodes ? parameters.interNodeLatencyMicroseconds
                           : parameters.intraNodeLatencyMicroseconds) +
      transferSeconds(static_cast<double>(bytes),
                      crossesNodes ? parameters.interNodeGbps : parameters.intraNodeGbps);
  return traffic;
}

} // namespace streamrace::emu::nccl
