// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "trainer.h"

#include "kernels.h"
#include "synthetic_task.h"

#include <nvtx3/nvToolsExtCudaRt.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace hpz {

namespace {

constexpr int kSamplesPerRank = 256;
constexpr int kBatchPerRank = 16;
constexpr AdamStep kAdamHyperparameters{1e-3f, 0.9f, 0.999f, 1e-8f, 1.0f, 1.0f};

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void nameEvent(const Event& event, const std::string& name) {
  nvtxNameCudaEventA(event.get(), name.c_str());
}

// FNV-1a over the values' bytes: weights equal bit for bit give equal checksums.
std::uint64_t checksumOf(const std::vector<float>& values) {
  std::uint64_t hash = 14695981039346656037ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  for (std::size_t index = 0; index < values.size() * sizeof(float); ++index) {
    hash = (hash ^ bytes[index]) * 1099511628211ull;
  }
  return hash;
}

std::vector<float> copyToHost(const DeviceFloats& device, std::size_t count) {
  std::vector<float> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), device.get(), count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

} // namespace

Trainer::Trainer(const Options& options, const RankLayout& layout, Communicators communicators)
    : options_(options), stepFunction_(stepFunctionFor(options.mode)), layout_(layout),
      communicators_(std::move(communicators)), allGatherStream_(createNonBlockingStream()),
      reduceScatterStream_(createNonBlockingStream()), reduceScattered_(createEvent()), loss_(1),
      hostLoss_(1) {
  // The names the stream-race tracer reports: C is the legacy default stream.
  nvtxNameCudaStreamA(computeStream_, "C");
  nvtxNameCudaStreamA(allGatherStream_.get(), "A");
  nvtxNameCudaStreamA(reduceScatterStream_.get(), "R");

  for (int rank = 0; rank < layout_.worldSize; ++rank) {
    worldNodes_.push_back(layout_.nodeOf(rank));
  }
  const int nodes = layout_.worldSize / layout_.ranksPerNode;
  for (int node = 0; node < nodes; ++node) {
    intraNodeGroups_.emplace_back(static_cast<std::size_t>(layout_.ranksPerNode), node);
  }
  std::vector<int> everyNode(static_cast<std::size_t>(nodes));
  for (int node = 0; node < nodes; ++node) {
    everyNode[static_cast<std::size_t>(node)] = node;
  }
  interNodeGroups_.assign(static_cast<std::size_t>(layout_.ranksPerNode), everyNode);

  const std::vector<DenseShape> shapes = modelShapes();
  layers_.resize(shapes.size());
  weightChecksums_ = DeviceArray<std::uint64_t>(2 * shapes.size());
  gatheredWeightChecksums_ = DeviceArray<std::uint64_t>(
      weightChecksums_.count() * static_cast<std::size_t>(layout_.worldSize));
  for (std::size_t index = 0; index < shapes.size(); ++index) {
    Layer& layer = layers_[index];
    layer.shape = shapes[index];
    layer.geometry =
        ShardGeometry::of(layer.shape.parameterCount(), layout_.worldSize, layout_.ranksPerNode);
    const ShardGeometry& geometry = layer.geometry;
    layer.primary = DeviceFloats(geometry.primaryShard);
    layer.firstMoment = DeviceFloats(geometry.primaryShard);
    layer.secondMoment = DeviceFloats(geometry.primaryShard);
    layer.gradientShard = DeviceFloats(geometry.primaryShard);
    layer.gradient = DeviceFloats(geometry.aligned);
    layer.forwardWeights = DeviceFloats(geometry.aligned);
    layer.backwardWeights = DeviceFloats(geometry.aligned);
    const std::size_t activations =
        static_cast<std::size_t>(kBatchPerRank) * static_cast<std::size_t>(layer.shape.outFeatures);
    if (options_.quantizeWeights) {
      allocateWeightQuantization(layer);
    }
    if (options_.quantizeGradients) {
      allocateGradientQuantization(layer);
    }
    layer.output = DeviceFloats(activations);
    layer.outputGradient = DeviceFloats(activations);
    layer.forwardGathered = createEvent();
    layer.backwardGathered = createEvent();
    layer.released = createEvent();
    layer.gradientReady = createEvent();
    const std::string suffix = " layer " + std::to_string(index);
    nameEvent(layer.forwardGathered, "forward gathered" + suffix);
    nameEvent(layer.backwardGathered, "backward gathered" + suffix);
    nameEvent(layer.released, "secondary shard copied" + suffix);
    nameEvent(layer.gradientReady, "gradient ready" + suffix);

    // Every rank builds the same full parameter and keeps its primary slice; the padding of the
    // last slice is zero and stays zero (its gradient is zero).
    std::vector<float> full =
        initialParameters(layer.shape, options_.seed, static_cast<int>(index));
    full.resize(geometry.aligned, 0.0f);
    CUDA_CHECK(
        cudaMemcpy(layer.primary.get(),
                   full.data() + static_cast<std::size_t>(layout_.rank) * geometry.primaryShard,
                   layer.primary.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(layer.firstMoment.get(), 0, layer.firstMoment.bytes()));
    CUDA_CHECK(cudaMemset(layer.secondMoment.get(), 0, layer.secondMoment.bytes()));
    CUDA_CHECK(cudaMemset(layer.gradient.get(), 0, layer.gradient.bytes()));
  }

  const Samples samples =
      rankSamples(options_.seed, layout_.rank, kSamplesPerRank, layers_.front().shape.inFeatures,
                  layers_.back().shape.outFeatures);
  sampleCount_ = samples.count;
  inputs_ = DeviceFloats(samples.inputs.size());
  targets_ = DeviceFloats(samples.targets.size());
  CUDA_CHECK(
      cudaMemcpy(inputs_.get(), samples.inputs.data(), inputs_.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(
      cudaMemcpy(targets_.get(), samples.targets.data(), targets_.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());

  if (usesSecondaryShards(options_.mode)) {
    // As in DeepSpeed, the first secondary shards are made while partitioning the model, before
    // training, and are complete when step 0 begins.
    for (Layer& layer : layers_) {
      StepReport setup;
      issueForwardGather(layer, setup);
      setupTraffic_ += setup.traffic;
      layer.secondary = DeviceFloats(layer.geometry.secondaryShard);
      CUDA_CHECK(cudaStreamSynchronize(allGatherStream_.get()));
      CUDA_CHECK(
          cudaMemcpy(layer.secondary.get(),
                     layer.forwardWeights.get() + static_cast<std::size_t>(layout_.localRank) *
                                                      layer.geometry.secondaryShard,
                     layer.secondary.bytes(), cudaMemcpyDeviceToDevice));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    secondaryShardsValid_ = true;
  }
}

Trainer::StepFunction Trainer::stepFunctionFor(Mode mode) {
#ifdef HPZ_ONLY_MODE
  if (mode != Mode::HPZ_ONLY_MODE) {
    throw std::invalid_argument(std::string("this hpz_train is built for --mode ") +
                                modeName(Mode::HPZ_ONLY_MODE) + " alone");
  }
  return &Trainer::stepIn<Mode::HPZ_ONLY_MODE>;
#else
  switch (mode) {
  case Mode::Zero3:
    return &Trainer::stepIn<Mode::Zero3>;
  case Mode::HpzBuggy:
    return &Trainer::stepIn<Mode::HpzBuggy>;
  case Mode::HpzFixHostSync:
    return &Trainer::stepIn<Mode::HpzFixHostSync>;
  case Mode::HpzFixEvent:
    return &Trainer::stepIn<Mode::HpzFixEvent>;
  }
  throw std::invalid_argument("unknown mode");
#endif
}

StepReport Trainer::step(int stepIndex) {
  return (this->*stepFunction_)(stepIndex);
}

void Trainer::allocateWeightQuantization(Layer& layer) const {
  const std::size_t shard = layer.geometry.primaryShard;
  const auto shardBlocks = static_cast<std::size_t>(quantizationBlocks(static_cast<int>(shard)));
  layer.quantizedShard = DeviceArray<std::int8_t>(shard);
  layer.shardScales = DeviceFloats(shardBlocks);
  layer.gatheredQuantized = DeviceArray<std::int8_t>(layer.geometry.aligned);
  layer.gatheredScales = DeviceFloats(shardBlocks * static_cast<std::size_t>(layout_.worldSize));
}

void Trainer::allocateGradientQuantization(Layer& layer) const {
  const std::size_t shard = layer.geometry.primaryShard;
  const auto shardBlocks = static_cast<std::size_t>(quantizationBlocks(static_cast<int>(shard)));
  const auto world = static_cast<std::size_t>(layout_.worldSize);
  const auto nodes = static_cast<std::size_t>(layout_.worldSize / layout_.ranksPerNode);
  layer.groupedGradient = DeviceFloats(layer.geometry.aligned);
  layer.intraNodeSend = DeviceArray<std::int8_t>(layer.geometry.aligned);
  layer.intraNodeSendScales = DeviceFloats(shardBlocks * world);
  layer.intraNodeReceive = DeviceArray<std::int8_t>(layer.geometry.aligned);
  layer.intraNodeReceiveScales = DeviceFloats(shardBlocks * world);
  layer.nodePartialSums = DeviceFloats(shard * nodes);
  layer.interNodeSend = DeviceArray<std::int8_t>(shard * nodes);
  layer.interNodeSendScales = DeviceFloats(shardBlocks * nodes);
  layer.interNodeReceive = DeviceArray<std::int8_t>(shard * nodes);
  layer.interNodeReceiveScales = DeviceFloats(shardBlocks * nodes);
}

// The full weight from every rank's primary shard; with qwZ the shards travel as int8 blocks
// and scales, and are dequantized on the gather stream.
void Trainer::gatherOverWorld(Layer& layer, float* fullWeights, StepReport& report) {
  const cudaStream_t stream = allGatherStream_.get();
  const std::size_t shard = layer.geometry.primaryShard;
  if (!options_.quantizeWeights) {
    NCCL_CHECK(ncclAllGather(layer.primary.get(), fullWeights, shard, ncclFloat32,
                             communicators_.world.get(), stream));
    report.traffic.addRingCollective(worldNodes_, shard * sizeof(float));
    return;
  }
  launchQuantize(layer.primary.get(), static_cast<int>(shard), 1, layer.quantizedShard.get(),
                 layer.shardScales.get(), stream);
  NCCL_CHECK(ncclAllGather(layer.quantizedShard.get(), layer.gatheredQuantized.get(), shard,
                           ncclInt8, communicators_.world.get(), stream));
  NCCL_CHECK(ncclAllGather(layer.shardScales.get(), layer.gatheredScales.get(),
                           layer.shardScales.count(), ncclFloat32, communicators_.world.get(),
                           stream));
  launchDequantize(layer.gatheredQuantized.get(), layer.gatheredScales.get(),
                   static_cast<int>(shard), layout_.worldSize, fullWeights, stream);
  report.traffic.addRingCollective(worldNodes_, shard * sizeof(std::int8_t));
  report.traffic.addRingCollective(worldNodes_, layer.shardScales.bytes());
}

void Trainer::issueForwardGather(Layer& layer, StepReport& report) {
  gatherOverWorld(layer, layer.forwardWeights.get(), report);
  CUDA_CHECK(cudaEventRecord(layer.forwardGathered.get(), allGatherStream_.get()));
}

// The mode's backward gather into the backward weights: ZeRO-3 gathers the primary shards over
// WORLD again; the hpZ modes gather the secondary shards of this node's ranks over INTRA, the
// event fix first making stream A wait for the copy that made this rank's shard.
template <Mode mode> void Trainer::issueBackwardGather(Layer& layer, StepReport& report) {
  if constexpr (!usesSecondaryShards(mode)) {
    gatherOverWorld(layer, layer.backwardWeights.get(), report);
  } else {
    if constexpr (mode == Mode::HpzFixEvent) {
      CUDA_CHECK(cudaStreamWaitEvent(allGatherStream_.get(), layer.released.get(), 0));
    }
    NCCL_CHECK(ncclAllGather(layer.secondary.get(), layer.backwardWeights.get(),
                             layer.geometry.secondaryShard, ncclFloat32,
                             communicators_.intraNode.get(), allGatherStream_.get()));
    for (const std::vector<int>& group : intraNodeGroups_) {
      report.traffic.addRingCollective(group, layer.geometry.secondaryShard * sizeof(float));
    }
  }
  CUDA_CHECK(cudaEventRecord(layer.backwardGathered.get(), allGatherStream_.get()));
}

// DeepSpeed's release after forward: this rank's slice of the full weight becomes the secondary
// shard, copied on the compute stream into a buffer allocated for this step.
void Trainer::release(Layer& layer) {
  const std::size_t slice =
      static_cast<std::size_t>(layout_.localRank) * layer.geometry.secondaryShard;
  CUDA_CHECK(cudaMemcpyAsync(layer.secondary.get(), layer.forwardWeights.get() + slice,
                             layer.secondary.bytes(), cudaMemcpyDeviceToDevice, computeStream_));
}

// What a fix adds after the release's copy so that the backward gathers read a finished shard:
// the host-sync fix waits for stream C, the event fix records the layer's event on it. ZeRO-3
// makes no secondary shards and hpz-buggy adds nothing.
template <Mode mode> void Trainer::orderRelease(Layer& layer, StepReport& report) {
  if constexpr (mode == Mode::HpzFixHostSync) {
    const Clock::time_point stallStart = Clock::now();
    CUDA_CHECK(cudaStreamSynchronize(computeStream_));
    report.hostStallMilliseconds += millisecondsSince(stallStart);
  } else if constexpr (mode == Mode::HpzFixEvent) {
    CUDA_CHECK(cudaEventRecord(layer.released.get(), computeStream_));
  }
}

// After the optimizer the secondary shards are stale. The next step's come from fresh buffers;
// with --poison they hold NaN until their copy, so a read that beats the copy cannot go unseen.
void Trainer::prepareNextSecondaryShards() {
  for (Layer& layer : layers_) {
    layer.nextSecondary = DeviceFloats(layer.geometry.secondaryShard);
    if (options_.poisonSecondaryShards) {
      CUDA_CHECK(cudaMemsetAsync(layer.nextSecondary.get(), 0xFF, layer.nextSecondary.bytes(),
                                 computeStream_));
    }
  }
}

// Gradients (already divided by W) summed over all ranks into this rank's primary shard.
void Trainer::reduceGradient(Layer& layer, StepReport& report) {
  if (options_.quantizeGradients) {
    reduceGradientQuantized(layer, report);
    return;
  }
  NCCL_CHECK(ncclReduceScatter(layer.gradient.get(), layer.gradientShard.get(),
                               layer.geometry.primaryShard, ncclFloat32, ncclSum,
                               communicators_.world.get(), reduceScatterStream_.get()));
  report.traffic.addRingCollective(worldNodes_, layer.geometry.primaryShard * sizeof(float));
}

// qgZ: int8 all-to-all inside the node, so each rank sums its node's contributions to the shards
// of its local index on every node; then int8 all-to-all across nodes, so each rank sums the
// nodes' partial sums of its own shard. Both hops add their sources in rank order.
void Trainer::reduceGradientQuantized(Layer& layer, StepReport& report) {
  const cudaStream_t stream = reduceScatterStream_.get();
  const int shard = static_cast<int>(layer.geometry.primaryShard);
  const int nodes = layout_.worldSize / layout_.ranksPerNode;
  const int shardBlocks = quantizationBlocks(shard);
  launchGroupShardsByLocalRank(layer.gradient.get(), shard, nodes, layout_.ranksPerNode,
                               layer.groupedGradient.get(), stream);
  launchQuantize(layer.groupedGradient.get(), shard, layout_.worldSize, layer.intraNodeSend.get(),
                 layer.intraNodeSendScales.get(), stream);
  const auto valuesPerPeer = static_cast<std::size_t>(shard) * static_cast<std::size_t>(nodes);
  const auto scalesPerPeer =
      static_cast<std::size_t>(shardBlocks) * static_cast<std::size_t>(nodes);
  NCCL_CHECK(ncclAlltoAll(layer.intraNodeSend.get(), layer.intraNodeReceive.get(), valuesPerPeer,
                          ncclInt8, communicators_.intraNode.get(), stream));
  NCCL_CHECK(ncclAlltoAll(layer.intraNodeSendScales.get(), layer.intraNodeReceiveScales.get(),
                          scalesPerPeer, ncclFloat32, communicators_.intraNode.get(), stream));
  for (const std::vector<int>& group : intraNodeGroups_) {
    report.traffic.addAllToAll(group, valuesPerPeer);
    report.traffic.addAllToAll(group, scalesPerPeer * sizeof(float));
  }
  launchDequantizeSum(layer.intraNodeReceive.get(), layer.intraNodeReceiveScales.get(), shard,
                      nodes, layout_.ranksPerNode, layer.nodePartialSums.get(), stream);

  launchQuantize(layer.nodePartialSums.get(), shard, nodes, layer.interNodeSend.get(),
                 layer.interNodeSendScales.get(), stream);
  NCCL_CHECK(ncclAlltoAll(layer.interNodeSend.get(), layer.interNodeReceive.get(),
                          static_cast<std::size_t>(shard), ncclInt8, communicators_.interNode.get(),
                          stream));
  NCCL_CHECK(ncclAlltoAll(layer.interNodeSendScales.get(), layer.interNodeReceiveScales.get(),
                          static_cast<std::size_t>(shardBlocks), ncclFloat32,
                          communicators_.interNode.get(), stream));
  for (const std::vector<int>& group : interNodeGroups_) {
    report.traffic.addAllToAll(group, static_cast<std::size_t>(shard));
    report.traffic.addAllToAll(group, static_cast<std::size_t>(shardBlocks) * sizeof(float));
  }
  launchDequantizeSum(layer.interNodeReceive.get(), layer.interNodeReceiveScales.get(), shard, 1,
                      nodes, layer.gradientShard.get(), stream);
}

template <Mode mode> StepReport Trainer::stepIn(int stepIndex) {
  StepReport report;
  const Clock::time_point stepStart = Clock::now();
  const cudaStream_t compute = computeStream_;
  const int batchesPerEpoch = sampleCount_ / kBatchPerRank;
  const std::size_t firstSample = static_cast<std::size_t>(stepIndex % batchesPerEpoch) *
                                  static_cast<std::size_t>(kBatchPerRank);
  const float* batchInput =
      inputs_.get() + firstSample * static_cast<std::size_t>(layers_.front().shape.inFeatures);
  const float* batchTarget =
      targets_.get() + firstSample * static_cast<std::size_t>(layers_.back().shape.outFeatures);
  const bool createSecondaryShards = usesSecondaryShards(mode) && !secondaryShardsValid_;
  const std::size_t layerCount = layers_.size();

  issueForwardGather(layers_[0], report);
  for (std::size_t index = 0; index < layerCount; ++index) {
    Layer& layer = layers_[index];
    if (index + 1 < layerCount) {
      issueForwardGather(layers_[index + 1], report);
    }
    CUDA_CHECK(cudaStreamWaitEvent(compute, layer.forwardGathered.get(), 0));
    const float* input = index == 0 ? batchInput : layers_[index - 1].output.get();
    launchDenseForward(layer.forwardWeights.get(), input, layer.output.get(), kBatchPerRank,
                       layer.shape.inFeatures, layer.shape.outFeatures, index + 1 < layerCount,
                       compute);
    if (createSecondaryShards) {
      release(layer);
      orderRelease<mode>(layer, report);
    }
  }
  Layer& last = layers_.back();
  launchMseLoss(last.output.get(), batchTarget, last.outputGradient.get(), loss_.get(),
                kBatchPerRank * last.shape.outFeatures, compute);

  const float gradientScale = 1.0f / static_cast<float>(layout_.worldSize);
  issueBackwardGather<mode>(layers_[layerCount - 1], report);
  for (std::size_t index = layerCount; index-- > 0;) {
    Layer& layer = layers_[index];
    if (index > 0) {
      issueBackwardGather<mode>(layers_[index - 1], report);
    }
    CUDA_CHECK(cudaStreamWaitEvent(compute, layer.backwardGathered.get(), 0));
    const float* input = index == 0 ? batchInput : layers_[index - 1].output.get();
    launchDenseBackwardParameters(layer.outputGradient.get(), input, layer.gradient.get(),
                                  kBatchPerRank, layer.shape.inFeatures, layer.shape.outFeatures,
                                  gradientScale, compute);
    if (index > 0) {
      launchDenseBackwardInput(layer.backwardWeights.get(), layer.outputGradient.get(), input,
                               layers_[index - 1].outputGradient.get(), kBatchPerRank,
                               layer.shape.inFeatures, layer.shape.outFeatures, compute);
    }
    CUDA_CHECK(cudaEventRecord(layer.gradientReady.get(), compute));
    CUDA_CHECK(cudaStreamWaitEvent(reduceScatterStream_.get(), layer.gradientReady.get(), 0));
    reduceGradient(layer, report);
  }
  CUDA_CHECK(cudaEventRecord(reduceScattered_.get(), reduceScatterStream_.get()));
  CUDA_CHECK(cudaStreamWaitEvent(compute, reduceScattered_.get(), 0));

  AdamStep adamStep = kAdamHyperparameters;
  adamStep.biasCorrection1 = 1.0f - std::pow(adamStep.beta1, static_cast<float>(stepIndex + 1));
  adamStep.biasCorrection2 = 1.0f - std::pow(adamStep.beta2, static_cast<float>(stepIndex + 1));
  for (Layer& layer : layers_) {
    launchAdam(layer.primary.get(), layer.gradientShard.get(), layer.firstMoment.get(),
               layer.secondMoment.get(), static_cast<int>(layer.geometry.primaryShard), adamStep,
               compute);
  }
  if constexpr (usesSecondaryShards(mode)) {
    prepareNextSecondaryShards();
  }
  CUDA_CHECK(cudaMemcpyAsync(hostLoss_.get(), loss_.get(), sizeof(float), cudaMemcpyDeviceToHost,
                             compute));
  CUDA_CHECK(cudaDeviceSynchronize());
  report.stepMilliseconds = millisecondsSince(stepStart);
  report.loss = hostLoss_.get()[0];

  if constexpr (usesSecondaryShards(mode)) {
    for (Layer& layer : layers_) {
      layer.secondary = std::move(layer.nextSecondary);
    }
    secondaryShardsValid_ = false;
  }
  checkWeights(stepIndex, report);
  return report;
}

// Runs after the step's device synchronization: both gathered copies are final. The backward
// gather must give every rank the weights the forward gather gave it, and the forward gather
// (over WORLD) gives all ranks the same weights, so both copies must agree on every rank.
void Trainer::checkWeights(int stepIndex, StepReport& report) {
  std::vector<std::uint64_t> checksums;
  for (std::size_t index = 0; index < layers_.size(); ++index) {
    const Layer& layer = layers_[index];
    const std::size_t count = layer.geometry.numel;
    const std::vector<float> forward = copyToHost(layer.forwardWeights, count);
    const std::vector<float> backward = copyToHost(layer.backwardWeights, count);
    checksums.push_back(checksumOf(forward));
    checksums.push_back(checksumOf(backward));
    std::size_t differing = 0;
    for (std::size_t value = 0; value < count; ++value) {
      differing += std::bit_cast<std::uint32_t>(forward[value]) !=
                           std::bit_cast<std::uint32_t>(backward[value])
                       ? 1
                       : 0;
    }
    if (differing > 0) {
      ++report.mismatchingLayers;
      std::printf("rank %d step %d layer %zu: weight mismatch: %zu of %zu backward-gathered values "
                  "differ from the forward-gathered ones\n",
                  layout_.rank, stepIndex, index, differing, count);
    }
  }
  report.crossRankMismatchingLayers = compareAcrossRanks(stepIndex, checksums);
}

// Every rank all-gathers the checksums over WORLD and compares the others' with its own, so each
// rank counts the layers on which some rank trained on different weights.
int Trainer::compareAcrossRanks(int stepIndex, const std::vector<std::uint64_t>& checksums) {
  // The upload on the gather's own stream: a cudaMemcpy from pageable memory may return before
  // its device write is done, and nothing would order that write before stream A's read.
  const cudaStream_t stream = allGatherStream_.get();
  CUDA_CHECK(cudaMemcpyAsync(weightChecksums_.get(), checksums.data(), weightChecksums_.bytes(),
                             cudaMemcpyHostToDevice, stream));
  NCCL_CHECK(ncclAllGather(weightChecksums_.get(), gatheredWeightChecksums_.get(),
                           weightChecksums_.count(), ncclUint64, communicators_.world.get(),
                           stream));
  checkTraffic_.addRingCollective(worldNodes_, weightChecksums_.bytes());
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::uint64_t> everyRank(gatheredWeightChecksums_.count());
  CUDA_CHECK(cudaMemcpy(everyRank.data(), gatheredWeightChecksums_.get(),
                        gatheredWeightChecksums_.bytes(), cudaMemcpyDeviceToHost));

  int mismatchingLayers = 0;
  const char* const copies[] = {"forward", "backward"};
  for (std::size_t index = 0; index < layers_.size(); ++index) {
    bool mismatching = false;
    for (std::size_t copy = 0; copy < 2; ++copy) {
      const std::size_t slot = 2 * index + copy;
      std::string differingRanks;
      for (int other = 0; other < layout_.worldSize; ++other) {
        const std::uint64_t theirs =
            everyRank[static_cast<std::size_t>(other) * checksums.size() + slot];
        if (theirs != checksums[slot]) {
          differingRanks += (differingRanks.empty() ? "" : ", ") + std::to_string(other);
        }
      }
      if (!differingRanks.empty()) {
        mismatching = true;
        std::printf("rank %d step %d layer %zu: cross-rank mismatch: the %s-gathered weights of "
                    "rank(s) %s differ from this rank's\n",
                    layout_.rank, stepIndex, index, copies[copy], differingRanks.c_str());
      }
    }
    mismatchingLayers += mismatching ? 1 : 0;
  }
  return mismatchingLayers;
}

} // namespace hpz
