// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Communicator::runPointToPoint: the sends and receives of one group (or one ungrouped call)
// progress together, so a group that sends to and receives from the same peer never waits on
// itself. Each ordered pair of ranks has a one-slot channel; the m-th send from A to B pairs
// with the m-th receive on B from A. As NCCL documents, a send blocks its stream until the
// peer's receive has taken the data, not only until the data left the send buffer: a program
// that reuses the buffer without waiting for the send races whatever the timing.
#include "communicator.h"

#include "link_statistics.h"
#include "polling.h"
#include "reduction.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace streamrace::emu::nccl {
namespace {

struct TransferProgress {
  const PointToPointCall* call;
  std::size_t bytes;
  std::size_t chunks;
  std::size_t chunksDone = 0;
  bool done = false;
};

std::size_t chunkCount(std::size_t bytes, std::size_t slotBytes) {
  return std::max<std::size_t>(1, (bytes + slotBytes - 1) / slotBytes);
}

} // namespace

bool Communicator::runPointToPoint(std::span<const PointToPointCall> calls) {
  const std::size_t slotBytes = segment_->pointToPointSlotBytes();
  std::vector<TransferProgress> transfers;
  std::vector<int> peers;
  for (const PointToPointCall& call : calls) {
    const std::size_t bytes = call.count * datatypeSize(call.datatype);
    transfers.push_back(TransferProgress{&call, bytes, chunkCount(bytes, slotBytes)});
    peers.push_back(call.peer);
  }
  const auto finishAll = [&] {
    for (const TransferProgress& transfer : transfers) {
      if (!transfer.done) {
        auto& finished = messagesFinished_[static_cast<int>(transfer.call->direction) * rankCount_ +
                                           transfer.call->peer];
        finished.store(std::max(finished.load(), transfer.call->messageIndex + 1));
      }
    }
  };
  if (asyncError() != ncclSuccess) {
    finishAll();
    return false;
  }

  // One step of one transfer: moves a chunk if the channel allows. Returns false on a mismatch.
  const auto step = [&](TransferProgress& transfer, bool& moved) {
    const PointToPointCall& call = *transfer.call;
    auto& finished = messagesFinished_[static_cast<int>(call.direction) * rankCount_ + call.peer];
    if (finished.load(std::memory_order_acquire) != call.messageIndex) {
      return true; // an earlier transfer between the same pair goes first
    }
    const bool sending = call.direction == TransferDirection::Send;
    ChannelState& channel =
        sending ? segment_->channel(rank_, call.peer) : segment_->channel(call.peer, rank_);
    unsigned char* staging = sending ? segment_->pointToPointStaging(rank_, call.peer)
                                     : segment_->pointToPointStaging(call.peer, rank_);
    const std::uint64_t produced = atomicLoad(channel.chunksProduced);
    const std::uint64_t consumed = atomicLoad(channel.chunksConsumed);
    const std::size_t offset = transfer.chunksDone * slotBytes;
    const std::size_t chunkBytes =
        std::min(slotBytes, transfer.bytes - std::min(transfer.bytes, offset));
    if (sending) {
      if (transfer.chunksDone == transfer.chunks) {
        // Every chunk is out; the send holds its stream until the receiver has taken the last.
        if (consumed != produced) {
          return true;
        }
        transfer.done = true;
        finished.store(call.messageIndex + 1, std::memory_order_release);
        moved = true;
        return true;
      }
      if (produced != consumed) {
        return true;
      }
      channel.messageIndex = call.messageIndex;
      channel.messageBytes = transfer.bytes;
      channel.chunkBytes = chunkBytes;
      std::memcpy(staging, static_cast<const unsigned char*>(call.sendBuffer) + offset, chunkBytes);
      atomicStore(channel.chunksProduced, produced + 1);
    } else {
      if (produced == consumed) {
        return true;
      }
      if (channel.messageIndex != call.messageIndex || channel.messageBytes != transfer.bytes) {
        fail(ncclSystemError, "point-to-point mismatch on communicator " + displayName_ +
                                  ": rank " + std::to_string(call.peer) + " sent " +
                                  std::to_string(channel.messageBytes) + " bytes (send #" +
                                  std::to_string(channel.messageIndex) + " to rank " +
                                  std::to_string(rank_) + ") but rank " + std::to_string(rank_) +
                                  " receives " + std::to_string(transfer.bytes) +
                                  " bytes (receive #" + std::to_string(call.messageIndex) +
                                  " from rank " + std::to_string(call.peer) + ")");
        return false;
      }
      std::memcpy(static_cast<unsigned char*>(call.receiveBuffer) + offset, staging, chunkBytes);
      atomicStore(channel.chunksConsumed, consumed + 1);
    }
    moved = true;
    if (++transfer.chunksDone == transfer.chunks && !sending) {
      transfer.done = true;
      finished.store(call.messageIndex + 1, std::memory_order_release);
    }
    return true;
  };

  auto lastProgress = std::chrono::steady_clock::now();
  Backoff backoff;
  for (;;) {
    bool moved = false;
    bool allDone = true;
    for (TransferProgress& transfer : transfers) {
      if (!transfer.done && !step(transfer, moved)) {
        finishAll();
        return false;
      }
      allDone = allDone && transfer.done;
    }
    if (allDone) {
      break;
    }
    if (moved) {
      lastProgress = std::chrono::steady_clock::now();
      backoff = Backoff{};
      continue;
    }
    const std::string reason = stopReason(peers);
    if (!reason.empty()) {
      fail(ncclSystemError, reason);
      finishAll();
      return false;
    }
    if (std::chrono::steady_clock::now() - lastProgress >
        std::chrono::milliseconds(settings_.timeoutMs)) {
      std::string pending;
      for (const TransferProgress& transfer : transfers) {
        if (!transfer.done) {
          const PointToPointCall& call = *transfer.call;
          pending +=
              (pending.empty() ? "" : ", ") +
              std::string(call.direction == TransferDirection::Send ? "ncclSend to rank "
                                                                    : "ncclRecv from rank ") +
              std::to_string(call.peer) + " (" + std::to_string(transfer.bytes) + " bytes, #" +
              std::to_string(call.messageIndex) + ")";
        }
      }
      fail(ncclSystemError,
           "point-to-point watchdog: timed out after " + std::to_string(settings_.timeoutMs) +
               " ms on communicator " + displayName_ + ": rank " + std::to_string(rank_) +
               " still waits for " + pending + " (the peer never posted the matching call)");
      finishAll();
      return false;
    }
    backoff.pause();
  }

  double slowest = 0;
  for (const TransferProgress& transfer : transfers) {
    const PointToPointCall& call = *transfer.call;
    if (call.peer == rank_) {
      continue;
    }
    const bool sending = call.direction == TransferDirection::Send;
    const LinkTraffic traffic = pointToPointTraffic(settings_.link, transfer.bytes,
                                                    nodeOfRank_[sending ? rank_ : call.peer],
                                                    nodeOfRank_[sending ? call.peer : rank_]);
    if (sending) {
      recordTraffic(kPointToPointName, traffic);
    }
    slowest = std::max(slowest, traffic.seconds);
  }
  simulateDuration(slowest);
  return true;
}

} // namespace streamrace::emu::nccl
