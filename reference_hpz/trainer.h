// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One rank of the ZeRO-3 / hpZ data-parallel trainer (reference_hpz/README.md): parameters live as
// fp32 primary shards; each step gathers them for forward on stream A, computes on the default
// stream C, creates secondary shards (hpZ) with a device-to-device copy on C, gathers them inside
// the node for backward on A, reduce-scatters gradients on stream R and runs Adam on the primary
// shard.
//
// What differs between the modes (which gather backward reads, how the copy is ordered before
// it) is a compile-time choice: one instantiation of the step per mode, picked once when the
// trainer is made. A build with -DHPZ_ONLY_MODE=<Mode enumerator> (HpzBuggy, Zero3, ...) holds
// that mode's step alone, so a flow-sensitive static analysis of trainer.cpp sees one mode's
// synchronization, not the union of all four.
#pragma once

#include "cuda_resources.h"
#include "geometry.h"
#include "options.h"
#include "process_group.h"
#include "ring_traffic.h"

#include <cstdint>
#include <vector>

namespace hpz {

struct StepReport {
  float loss = 0.0f;
  // Layers whose backward-gathered weights differ from the forward-gathered ones.
  int mismatchingLayers = 0;
  // Layers whose forward- or backward-gathered weights differ from another rank's.
  int crossRankMismatchingLayers = 0;
  double stepMilliseconds = 0.0;
  double hostStallMilliseconds = 0.0;
  RingTraffic traffic;
};

class Trainer {
public:
  Trainer(const Options& options, const RankLayout& layout, Communicators communicators);
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  StepReport step(int stepIndex);

  // Traffic of the set-up (the initial secondary shards), not part of any step.
  const RingTraffic& setupTraffic() const { return setupTraffic_; }
  // Traffic of the cross-rank weight checks (checksums gathered after each step).
  const RingTraffic& checkTraffic() const { return checkTraffic_; }

private:
  struct Layer {
    DenseShape shape;
    ShardGeometry geometry;
    DeviceFloats primary;
    DeviceFloats firstMoment;
    DeviceFloats secondMoment;
    DeviceFloats gradientShard;
    DeviceFloats gradient;
    DeviceFloats forwardWeights;
    DeviceFloats backwardWeights;
    // qwZ: this rank's quantized primary shard and the gathered ones, with their scales.
    DeviceArray<std::int8_t> quantizedShard;
    DeviceFloats shardScales;
    DeviceArray<std::int8_t> gatheredQuantized;
    DeviceFloats gatheredScales;
    // qgZ: the gradient grouped by destination, each hop's int8 payload and scales, sent and
    // received, and the node's partial sums between the hops.
    DeviceFloats groupedGradient;
    DeviceArray<std::int8_t> intraNodeSend;
    DeviceFloats intraNodeSendScales;
    DeviceArray<std::int8_t> intraNodeReceive;
    DeviceFloats intraNodeReceiveScales;
    DeviceFloats nodePartialSums;
    DeviceArray<std::int8_t> interNodeSend;
    DeviceFloats interNodeSendScales;
    DeviceArray<std::int8_t> interNodeReceive;
    DeviceFloats interNodeReceiveScales;
    DeviceFloats secondary;
    DeviceFloats nextSecondary;
    DeviceFloats output;
    DeviceFloats outputGradient;
    Event forwardGathered;
    Event backwardGathered;
    Event released;
    Event gradientReady;
  };

  using StepFunction = StepReport (Trainer::*)(int);
  static StepFunction stepFunctionFor(Mode mode);

  void allocateWeightQuantization(Layer& layer) const;
  void allocateGradientQuantization(Layer& layer) const;
  void gatherOverWorld(Layer& layer, float* fullWeights, StepReport& report);
  void issueForwardGather(Layer& layer, StepReport& report);
  template <Mode mode> StepReport stepIn(int stepIndex);
  template <Mode mode> void issueBackwardGather(Layer& layer, StepReport& report);
  void release(Layer& layer);
  template <Mode mode> void orderRelease(Layer& layer, StepReport& report);
  void reduceGradient(Layer& layer, StepReport& report);
  void reduceGradientQuantized(Layer& layer, StepReport& report);
  void prepareNextSecondaryShards();
  void checkWeights(int stepIndex, StepReport& report);
  int compareAcrossRanks(int stepIndex, const std::vector<std::uint64_t>& checksums);

  Options options_;
  StepFunction stepFunction_;
  RankLayout layout_;
  Communicators communicators_;
  // C: the default stream, 0, which is the legacy stream.
  cudaStream_t computeStream_ = nullptr;
  Stream allGatherStream_;
  Stream reduceScatterStream_;
  Event reduceScattered_;
  std::vector<Layer> layers_;
  DeviceFloats inputs_;
  DeviceFloats targets_;
  DeviceFloats loss_;
  PinnedFloats hostLoss_;
  int sampleCount_ = 0;
  bool secondaryShardsValid_ = false;
  RingTraffic setupTraffic_;
  RingTraffic checkTraffic_;
  // Per layer, checksums of the forward- and backward-gathered weights: this rank's, then all
  // ranks' (rank-major), exchanged over WORLD.
  DeviceArray<std::uint64_t> weightChecksums_;
  DeviceArray<std::uint64_t> gatheredWeightChecksums_;
  std::vector<int> worldNodes_;
  std::vector<std::vector<int>> intraNodeGroups_;
  std::vector<std::vector<int>> interNodeGroups_;
};

} // namespace hpz
