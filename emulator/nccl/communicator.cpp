// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "communicator.h"

#include "polling.h"
#include "settings.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

namespace streamrace::emu::nccl {

CommunicatorSettings CommunicatorSettings::fromEnvironment() {
  CommunicatorSettings settings;
  settings.timeoutMs = settingInteger(Setting::NcclTimeoutMs, settings.timeoutMs);
  const std::int64_t slot = settingInteger(
      Setting::NcclSlotBytes, static_cast<std::int64_t>(settings.sizes.collectiveSlotBytes));
  // Staging must hold at least one element per rank for every datatype.
  settings.sizes.collectiveSlotBytes =
      std::max<std::uint64_t>(static_cast<std::uint64_t>(slot), 4096);
  settings.sizes.pointToPointSlotBytes =
      std::min(settings.sizes.pointToPointSlotBytes, settings.sizes.collectiveSlotBytes);
  settings.link = LinkParameters::fromEnvironment();
  return settings;
}

std::shared_ptr<Communicator> Communicator::join(const std::string& segmentName,
                                                 std::string displayName, int rankCount, int rank,
                                                 RankPlacement placement,
                                                 const CommunicatorSettings& settings) {
  std::unique_ptr<SharedSegment> segment;
  try {
    segment =
        SharedSegment::openOrCreate(segmentName, rankCount, settings.sizes, settings.timeoutMs);
  } catch (const std::invalid_argument& error) {
    throw CommunicatorError(ncclInvalidArgument,
                            "communicator " + displayName + ": " + error.what());
  } catch (const std::runtime_error& error) {
    throw CommunicatorError(ncclSystemError, "communicator " + displayName + ": " + error.what());
  }
  RankMailbox& mailbox = segment->mailbox(rank);
  if (std::atomic_ref<std::uint64_t>(mailbox.joined).exchange(1) != 0) {
    throw CommunicatorError(ncclInvalidArgument,
                            "communicator " + displayName + ": rank " + std::to_string(rank) +
                                " was initialized twice with the same unique id");
  }
  std::shared_ptr<Communicator> communicator(new Communicator(
      std::move(segment), segmentName, std::move(displayName), rankCount, rank, settings));
  try {
    const std::vector<BootstrapRecord> records = communicator->bootstrapAllGather(
        BootstrapRecord{{placement.node, placement.device, getpid(), 0}});
    for (int peer = 0; peer < rankCount; ++peer) {
      communicator->nodeOfRank_[peer] = static_cast<int>(records[peer].values[0]);
    }
    // Two ranks of one process on one device would serialize on its streams and deadlock; NCCL
    // refuses them at init, and so does every rank here, since all see the same records.
    for (int first = 0; first < rankCount; ++first) {
      for (int second = first + 1; second < rankCount; ++second) {
        if (records[first].values[2] == records[second].values[2] &&
            records[first].values[1] == records[second].values[1]) {
          throw CommunicatorError(
              ncclInvalidUsage,
              "communicator " + communicator->displayName_ + ": duplicate GPU detected: rank " +
                  std::to_string(first) + " and rank " + std::to_string(second) +
                  " are threads of process " + std::to_string(records[first].values[2]) +
                  " on the same device " + std::to_string(records[first].values[1]) +
                  " (call cudaSetDevice with a different device in each rank's thread)");
        }
      }
    }
  } catch (const CommunicatorError&) {
    communicator->segment_->unlinkName();
    throw;
  }
  // Every rank has mapped the segment: the name is no longer needed, and dropping it now means a
  // crash later leaves nothing behind in /dev/shm.
  if (rank == 0) {
    communicator->segment_->unlinkName();
  }
  return communicator;
}

Communicator::Communicator(std::unique_ptr<SharedSegment> segment, std::string segmentName,
                           std::string displayName, int rankCount, int rank,
                           const CommunicatorSettings& settings)
    : segment_(std::move(segment)), segmentName_(std::move(segmentName)),
      displayName_(std::move(displayName)), rankCount_(rankCount), rank_(rank), settings_(settings),
      nodeOfRank_(rankCount, 0), everyRank_(rankCount, 0),
      messagesIssued_(
          std::make_unique<std::atomic<std::uint64_t>[]>(2 * static_cast<std::size_t>(rankCount))),
      messagesFinished_(
          std::make_unique<std::atomic<std::uint64_t>[]>(2 * static_cast<std::size_t>(rankCount))) {
  for (int peer = 0; peer < rankCount; ++peer) {
    everyRank_[peer] = peer;
  }
}

Communicator::~Communicator() = default;

std::uint64_t Communicator::takeMessageIndex(TransferDirection direction, int peer) {
  return messagesIssued_[static_cast<int>(direction) * rankCount_ + peer]++;
}

std::string Communicator::lastError() const {
  std::lock_guard lock(errorMutex_);
  return lastError_;
}

void Communicator::fail(ncclResult_t result, const std::string& message) {
  std::lock_guard lock(errorMutex_);
  if (asyncError_.load() != ncclSuccess) {
    return;
  }
  lastError_ = message;
  RankMailbox& mailbox = segment_->mailbox(rank_);
  std::snprintf(mailbox.failureReason, sizeof(mailbox.failureReason), "%s", message.c_str());
  atomicStore(mailbox.failed, 1);
  asyncError_.store(result, std::memory_order_release);
}

void Communicator::abort() {
  aborted_.store(true);
  fail(ncclSystemError,
       "communicator " + displayName_ + " was aborted on rank " + std::to_string(rank_));
}

std::string Communicator::stopReason(std::span<const int> peers) {
  if (aborted_.load()) {
    return "communicator " + displayName_ + " was aborted on rank " + std::to_string(rank_);
  }
  for (const int peer : peers) {
    RankMailbox& mailbox = segment_->mailbox(peer);
    if (peer != rank_ && atomicLoad(mailbox.failed) != 0) {
      return "rank " + std::to_string(peer) + " of communicator " + displayName_ + " failed: " +
             std::string(mailbox.failureReason,
                         strnlen(mailbox.failureReason, sizeof(mailbox.failureReason)));
    }
  }
  return {};
}

std::string Communicator::rankList(const std::vector<int>& ranks) const {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    text += (i == 0 ? "" : ",") + std::to_string(ranks[i]);
  }
  return text;
}

Communicator::ArrivalWait Communicator::waitForEveryRank(std::uint64_t RankMailbox::* counter,
                                                         std::uint64_t phase) {
  const auto everyoneArrived = [&] {
    for (int peer = 0; peer < rankCount_; ++peer) {
      if (atomicLoad(segment_->mailbox(peer).*counter) < phase) {
        return false;
      }
    }
    return true;
  };
  ArrivalWait wait{PollOutcome::Ready, {}, {}};
  wait.outcome = pollUntil(
      everyoneArrived, [&] { return !(wait.reason = stopReason(everyRank_)).empty(); },
      std::chrono::milliseconds(settings_.timeoutMs));
  if (wait.outcome == PollOutcome::TimedOut) {
    for (int peer = 0; peer < rankCount_; ++peer) {
      if (atomicLoad(segment_->mailbox(peer).*counter) < phase) {
        wait.lagging.push_back(peer);
      }
    }
  }
  return wait;
}

std::vector<BootstrapRecord> Communicator::bootstrapAllGather(const BootstrapRecord& mine) {
  const std::uint64_t phase = bootstrapPhase_ + 1;
  RankMailbox& own = segment_->mailbox(rank_);
  own.bootstrap[phase % 2] = mine;
  atomicStore(own.bootstrapPhase, phase);
  const ArrivalWait wait = waitForEveryRank(&RankMailbox::bootstrapPhase, phase);
  if (wait.outcome == PollOutcome::Stopped) {
    throw CommunicatorError(ncclSystemError, wait.reason);
  }
  if (wait.outcome == PollOutcome::TimedOut) {
    throw CommunicatorError(
        ncclSystemError,
        "timed out after " + std::to_string(settings_.timeoutMs) + " ms on communicator " +
            displayName_ + " (" + std::to_string(rankCount_) +
            " ranks): " + rankList(wait.lagging) +
            (phase == 1 ? " never joined (ncclCommInitRank not called with this unique id)"
                        : " did not take part in the host-side exchange (ncclCommSplit)"));
  }
  std::vector<BootstrapRecord> records(rankCount_);
  for (int peer = 0; peer < rankCount_; ++peer) {
    records[peer] = segment_->mailbox(peer).bootstrap[phase % 2];
  }
  bootstrapPhase_ = phase;
  return records;
}

void Communicator::simulateDuration(double seconds) const {
  const double scaled = seconds * settings_.link.timeScale;
  if (scaled > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(scaled));
  }
}

} // namespace streamrace::emu::nccl
