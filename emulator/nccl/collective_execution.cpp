// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Communicator::runCollective: the k-th collective of every rank meets in the shared segment.
// Each rank announces a descriptor; if they agree, the data moves in rounds: every rank
// publishes a chunk of its contribution into its own staging slot, all ranks pass a barrier,
// each computes its share of the result from the slots, and a second barrier frees the slots.
#include "communicator.h"

#include "link_statistics.h"
#include "polling.h"
#include "reduction.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace streamrace::emu::nccl {
namespace {

std::int32_t opCodeOf(const CollectiveCall& call) {
  if (!collectiveInfo(call.kind).reducing) {
    return 0;
  }
  return static_cast<std::int32_t>(call.preMultiplier.present ? kPreMulSumCode : call.op);
}

CollectiveDescriptor descriptorOf(const CollectiveCall& call) {
  return CollectiveDescriptor{call.sequence,
                              static_cast<std::int32_t>(call.kind),
                              static_cast<std::int32_t>(call.datatype),
                              opCodeOf(call),
                              collectiveInfo(call.kind).rooted ? call.root : -1,
                              call.count};
}

// ReduceScatter, AlltoAll and Scatter contributions hold one block per destination rank.
bool hasBlockPerRank(CollectiveKind kind) {
  return kind == CollectiveKind::ReduceScatter || kind == CollectiveKind::AllToAll ||
         kind == CollectiveKind::Scatter;
}

bool contributes(const CollectiveCall& call, int rank) {
  return !(call.kind == CollectiveKind::Broadcast || call.kind == CollectiveKind::Scatter) ||
         rank == call.root;
}

} // namespace

std::string Communicator::describe(const CollectiveDescriptor& descriptor) const {
  const auto kind = static_cast<CollectiveKind>(descriptor.kind);
  std::string text = std::string(collectiveInfo(kind).function) +
                     "(count=" + std::to_string(descriptor.count) +
                     ", datatype=" + datatypeName(static_cast<ncclDataType_t>(descriptor.datatype));
  if (collectiveInfo(kind).reducing) {
    text += std::string(", op=") + reductionOpName(static_cast<ncclRedOp_t>(descriptor.op));
  }
  if (collectiveInfo(kind).rooted) {
    text += ", root=" + std::to_string(descriptor.root);
  }
  return text + ")";
}

bool Communicator::waitForTurn(const CollectiveCall& call) {
  std::string reason;
  const PollOutcome outcome = pollUntil(
      [&] { return collectivesFinished_.load(std::memory_order_acquire) == call.sequence; },
      [&] { return !(reason = stopReason({})).empty(); },
      std::chrono::milliseconds(settings_.timeoutMs));
  if (outcome == PollOutcome::Ready) {
    return true;
  }
  fail(ncclSystemError,
       outcome == PollOutcome::Stopped
           ? reason
           : "timed out after " + std::to_string(settings_.timeoutMs) + " ms on communicator " +
                 displayName_ + ": collective #" + std::to_string(call.sequence) + " on rank " +
                 std::to_string(rank_) + " waited for collective #" +
                 std::to_string(collectivesFinished_.load()) +
                 " of the same rank, which sits on another stream and has not run (a stream "
                 "dependency orders it after this one)");
  return false;
}

bool Communicator::collectiveBarrier(const CollectiveCall& call) {
  const std::uint64_t phase = ++collectivePhase_;
  atomicStore(segment_->mailbox(rank_).collectivePhase, phase);
  const ArrivalWait wait = waitForEveryRank(&RankMailbox::collectivePhase, phase);
  if (wait.outcome == PollOutcome::Ready) {
    return true;
  }
  if (wait.outcome == PollOutcome::Stopped) {
    fail(ncclSystemError, wait.reason);
    return false;
  }
  fail(ncclSystemError,
       "collective watchdog: timed out after " + std::to_string(settings_.timeoutMs) +
           " ms on communicator " + displayName_ + " (" + std::to_string(rankCount_) +
           " ranks) at collective #" + std::to_string(call.sequence) + ": rank " +
           std::to_string(rank_) + " called " + describe(descriptorOf(call)) + " but " +
           rankList(wait.lagging) +
           " never reached it (fewer collectives issued on that rank, or its stream is blocked)");
  return false;
}

bool Communicator::checkDescriptors(const CollectiveCall& call) {
  std::map<std::vector<std::uint64_t>, std::pair<CollectiveDescriptor, std::vector<int>>> variants;
  for (int peer = 0; peer < rankCount_; ++peer) {
    const CollectiveDescriptor descriptor = segment_->mailbox(peer).descriptor;
    const std::vector<std::uint64_t> key{descriptor.sequence,
                                         static_cast<std::uint64_t>(descriptor.kind),
                                         static_cast<std::uint64_t>(descriptor.datatype),
                                         static_cast<std::uint64_t>(descriptor.op),
                                         static_cast<std::uint64_t>(descriptor.root),
                                         descriptor.count};
    auto& entry = variants[key];
    entry.first = descriptor;
    entry.second.push_back(peer);
  }
  if (variants.size() == 1) {
    return true;
  }
  std::vector<std::pair<CollectiveDescriptor, std::vector<int>>> byFirstRank;
  byFirstRank.reserve(variants.size());
  for (auto& [key, entry] : variants) {
    byFirstRank.push_back(entry);
  }
  std::sort(byFirstRank.begin(), byFirstRank.end(),
            [](const auto& a, const auto& b) { return a.second.front() < b.second.front(); });
  std::string message = "collective mismatch on communicator " + displayName_ + " (" +
                        std::to_string(rankCount_) + " ranks) at collective #" +
                        std::to_string(call.sequence) + ": ";
  for (std::size_t i = 0; i < byFirstRank.size(); ++i) {
    message += (i == 0 ? "" : "; ") + rankList(byFirstRank[i].second) + " called " +
               describe(byFirstRank[i].first);
  }
  fail(ncclSystemError, message);
  return false;
}

void Communicator::exchangeRounds(const CollectiveCall& call) {
  const std::size_t elementSize = datatypeSize(call.datatype);
  const auto ranks = static_cast<std::size_t>(rankCount_);
  const std::size_t blocks = hasBlockPerRank(call.kind) ? ranks : 1;
  const std::size_t perRound =
      std::max<std::size_t>(1, segment_->collectiveSlotBytes() / (elementSize * blocks));
  const auto* send = static_cast<const unsigned char*>(call.sendBuffer);
  auto* receive = static_cast<unsigned char*>(call.receiveBuffer);
  const bool receives =
      !(call.kind == CollectiveKind::Reduce || call.kind == CollectiveKind::Gather) ||
      rank_ == call.root;
  std::vector<const void*> inputs(ranks);
  // The factor of a pre-multiplied sum, read once per collective like a kernel argument.
  unsigned char factor[8] = {};
  if (call.preMultiplier.present) {
    std::memcpy(factor,
                call.preMultiplier.deviceScalar != nullptr ? call.preMultiplier.deviceScalar
                                                           : call.preMultiplier.hostScalar,
                elementSize);
  }
  for (std::size_t first = 0; first < call.count; first += perRound) {
    const std::size_t elements = std::min(perRound, call.count - first);
    const std::size_t chunkBytes = elements * elementSize;
    unsigned char* own = segment_->collectiveStaging(rank_);
    if (contributes(call, rank_)) {
      for (std::size_t block = 0; block < blocks; ++block) {
        std::memcpy(own + block * chunkBytes, send + (block * call.count + first) * elementSize,
                    chunkBytes);
      }
      if (call.preMultiplier.present) {
        scaleElements(call.datatype, factor, own, elements * blocks);
      }
    }
    if (!collectiveBarrier(call)) {
      return;
    }
    if (receives) {
      // This rank's block within each staging slot, for the block-per-rank kinds.
      const std::size_t ownBlock = blocks == 1 ? 0 : static_cast<std::size_t>(rank_) * chunkBytes;
      switch (call.kind) {
      case CollectiveKind::AllGather:
      case CollectiveKind::Gather:
      case CollectiveKind::AllToAll:
        for (std::size_t peer = 0; peer < ranks; ++peer) {
          std::memcpy(receive + (peer * call.count + first) * elementSize,
                      segment_->collectiveStaging(static_cast<int>(peer)) + ownBlock, chunkBytes);
        }
        break;
      case CollectiveKind::AllReduce:
      case CollectiveKind::Reduce:
      case CollectiveKind::ReduceScatter:
        for (std::size_t peer = 0; peer < ranks; ++peer) {
          inputs[peer] = segment_->collectiveStaging(static_cast<int>(peer)) + ownBlock;
        }
        reduceElements(call.datatype, call.op, inputs, receive + first * elementSize, elements);
        break;
      case CollectiveKind::Broadcast:
      case CollectiveKind::Scatter:
        std::memcpy(receive + first * elementSize,
                    segment_->collectiveStaging(call.root) + ownBlock, chunkBytes);
        break;
      }
    }
    if (!collectiveBarrier(call)) {
      return;
    }
  }
}

bool Communicator::runCollective(const CollectiveCall& call) {
  if (asyncError() != ncclSuccess || !waitForTurn(call)) {
    collectivesFinished_.store(std::max(collectivesFinished_.load(), call.sequence + 1));
    return false;
  }
  segment_->mailbox(rank_).descriptor = descriptorOf(call);
  const bool agreed = collectiveBarrier(call) && checkDescriptors(call);
  if (agreed) {
    exchangeRounds(call);
  }
  const bool succeeded = asyncError() == ncclSuccess;
  if (succeeded) {
    const LinkTraffic traffic =
        collectiveTraffic(settings_.link, call.kind, call.count * datatypeSize(call.datatype),
                          rank_, call.root, nodeOfRank_);
    recordTraffic(collectiveInfo(call.kind).function, traffic);
    simulateDuration(traffic.seconds);
  }
  collectivesFinished_.store(call.sequence + 1, std::memory_order_release);
  return succeeded;
}

} // namespace streamrace::emu::nccl
