// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One rank's membership in a communicator, and the execution of its operations. Independent of
// the CUDA runtime: the API layer decides *when* an operation runs (on its stream, through a host
// function); this class makes it happen, rendezvousing with the other ranks through the shared
// segment, and turns every way that can go wrong into a recorded error instead of a hang.
#pragma once

#include "link_model.h"
#include "operation.h"
#include "polling.h"
#include "shared_segment.h"

#include <nccl.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace streamrace::emu::nccl {

struct CommunicatorSettings {
  // Long enough for ranks whose start-up (a Python job importing its framework) differs by tens
  // of seconds on a busy machine; real NCCL waits for its peers without limit.
  std::int64_t timeoutMs = 60000;
  SharedSegment::Sizes sizes{1u << 20, 256u << 10};
  LinkParameters link;

  // STREAMRACE_EMU_NCCL_TIMEOUT_MS (watchdog), STREAMRACE_EMU_NCCL_SLOT_BYTES (per-rank
  // collective staging; transfers larger than this go in chunks) and the link model's variables.
  static CommunicatorSettings fromEnvironment();
};

struct RankPlacement {
  int device = 0;
  int node = 0;
};

// A failure with the ncclResult_t the API returns for it.
class CommunicatorError : public std::runtime_error {
public:
  CommunicatorError(ncclResult_t result, const std::string& message)
      : std::runtime_error(message), result_(result) {}
  ncclResult_t result() const { return result_; }

private:
  ncclResult_t result_;
};

class Communicator {
public:
  // Blocks until all rankCount ranks have joined segmentName. displayName names the
  // communicator in messages. Throws CommunicatorError.
  static std::shared_ptr<Communicator> join(const std::string& segmentName, std::string displayName,
                                            int rankCount, int rank, RankPlacement placement,
                                            const CommunicatorSettings& settings);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int rankCount() const { return rankCount_; }
  const std::string& segmentName() const { return segmentName_; }
  const std::string& displayName() const { return displayName_; }
  const CommunicatorSettings& settings() const { return settings_; }
  const std::vector<int>& nodeOfRank() const { return nodeOfRank_; }

  // Host-side all-gather of a small record among all ranks, in call order (init, split).
  // Throws CommunicatorError on timeout or when a peer failed.
  std::vector<BootstrapRecord> bootstrapAllGather(const BootstrapRecord& mine);

  // Tickets taken when an operation is enqueued: they fix the order in which operations execute
  // even when they sit on different streams.
  std::uint64_t takeCollectiveSequence() { return collectivesIssued_++; }
  std::uint64_t takeMessageIndex(TransferDirection direction, int peer);

  // Run when the stream reaches the operation. They return false after recording an error
  // (lastError()); once an operation failed, every later one fails at once.
  bool runCollective(const CollectiveCall& call);
  bool runPointToPoint(std::span<const PointToPointCall> calls);

  // Stops waiting operations of this rank and tells peers to stop waiting for it.
  void abort();
  ncclResult_t asyncError() const { return asyncError_.load(std::memory_order_acquire); }
  std::string lastError() const;
  bool wasAborted() const { return aborted_.load(); }
  // True for the first caller only: a failure is reported once however many operations it stops.
  bool claimFailureReport() { return !failureReported_.exchange(true); }

private:
  Communicator(std::unique_ptr<SharedSegment> segment, std::string segmentName,
               std::string displayName, int rankCount, int rank,
               const CommunicatorSettings& settings);
  void fail(ncclResult_t result, const std::string& message);
  // Why this rank should stop waiting (empty: keep waiting): a local abort or a failed peer.
  std::string stopReason(std::span<const int> peers);
  std::string describe(const CollectiveDescriptor& descriptor) const;
  std::string rankList(const std::vector<int>& ranks) const;
  // Waits until every rank's mailbox `counter` reaches `phase`. On a timeout, `lagging` names
  // the ranks that had not arrived; on a stop, `reason` says why.
  struct ArrivalWait {
    PollOutcome outcome;
    std::string reason;
    std::vector<int> lagging;
  };
  ArrivalWait waitForEveryRank(std::uint64_t RankMailbox::* counter, std::uint64_t phase);
  bool waitForTurn(const CollectiveCall& call);
  bool collectiveBarrier(const CollectiveCall& call);
  bool checkDescriptors(const CollectiveCall& call);
  void exchangeRounds(const CollectiveCall& call);
  void simulateDuration(double seconds) const;

  std::unique_ptr<SharedSegment> segment_;
  std::string segmentName_;
  std::string displayName_;
  int rankCount_;
  int rank_;
  CommunicatorSettings settings_;
  std::vector<int> nodeOfRank_;
  std::vector<int> everyRank_;

  std::atomic<std::uint64_t> collectivesIssued_{0};
  std::atomic<std::uint64_t> collectivesFinished_{0};
  std::uint64_t collectivePhase_ = 0; // touched only by the collective holding the turn
  std::uint64_t bootstrapPhase_ = 0;  // touched only by the host thread
  std::unique_ptr<std::atomic<std::uint64_t>[]> messagesIssued_;   // [direction * n + peer]
  std::unique_ptr<std::atomic<std::uint64_t>[]> messagesFinished_; // [direction * n + peer]

  std::atomic<bool> aborted_{false};
  std::atomic<bool> failureReported_{false};
  std::atomic<ncclResult_t> asyncError_{ncclSuccess};
  mutable std::mutex errorMutex_;
  std::string lastError_;
};

} // namespace streamrace::emu::nccl
