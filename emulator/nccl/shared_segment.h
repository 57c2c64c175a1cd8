// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The rendezvous area of one communicator: a POSIX shared-memory object named by the unique id,
// mapped by every rank (threads of one process map it once each, processes each map it too).
// Emulated device memory is private to its process, so all data moves through here.
//
// Layout: SegmentHeader | RankMailbox[n] | ChannelState[n*n] | collective staging n * slot |
// point-to-point staging n*n * p2pSlot. Counters are 64-bit and accessed through std::atomic_ref,
// which is lock-free and therefore valid across processes.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace streamrace::emu::nccl {

inline constexpr std::uint64_t kSegmentMagic = 0x5354524d4e43434cull; // "STRMNCCL"

struct SegmentHeader {
  std::uint64_t magic; // stored last by the creator, with release order
  std::uint64_t totalBytes;
  std::uint64_t collectiveSlotBytes;
  std::uint64_t pointToPointSlotBytes;
  std::int32_t rankCount;
  std::int32_t padding; // explicit, so the header has no indeterminate bytes
};

// What a rank announces for the collective it is about to run; compared across ranks.
struct CollectiveDescriptor {
  std::uint64_t sequence;
  std::int32_t kind;
  std::int32_t datatype;
  std::int32_t op;
  std::int32_t root;
  std::uint64_t count;

  bool operator==(const CollectiveDescriptor&) const = default;
};

// Small fixed-size payload of the host-side (bootstrap) all-gather used by init and split.
struct BootstrapRecord {
  std::int64_t values[4];
};

struct alignas(64) RankMailbox {
  std::uint64_t joined;          // 1 once a rank claimed this slot
  std::uint64_t failed;          // 1 once the rank aborted or hit an error: peers stop waiting
  std::uint64_t collectivePhase; // barriers passed by this rank's collectives
  std::uint64_t bootstrapPhase;  // bootstrap all-gathers this rank has published
  CollectiveDescriptor descriptor;
  BootstrapRecord bootstrap[2]; // double-buffered by bootstrapPhase parity
  char failureReason[256];      // written before `failed` is set
};

// One direction of a point-to-point pair; one chunk in flight at a time.
struct alignas(64) ChannelState {
  std::uint64_t chunksProduced;
  std::uint64_t chunksConsumed;
  std::uint64_t messageIndex; // of the chunk in the slot
  std::uint64_t messageBytes; // total size of that message
  std::uint64_t chunkBytes;
};

inline std::uint64_t atomicLoad(std::uint64_t& field) {
  return std::atomic_ref<std::uint64_t>(field).load(std::memory_order_acquire);
}
inline void atomicStore(std::uint64_t& field, std::uint64_t value) {
  std::atomic_ref<std::uint64_t>(field).store(value, std::memory_order_release);
}
static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);

class SharedSegment {
public:
  struct Sizes {
    std::uint64_t collectiveSlotBytes;
    std::uint64_t pointToPointSlotBytes;
  };

  // Creates the object (first rank to arrive) or opens the one another rank created, waiting up
  // to timeoutMs for its creator to finish. Throws std::runtime_error with an actionable message.
  static std::unique_ptr<SharedSegment> openOrCreate(const std::string& name, int rankCount,
                                                     Sizes sizes, std::int64_t timeoutMs);
  ~SharedSegment();
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;

  // Removes the name; mappings stay valid. Called once every rank has mapped the segment.
  void unlinkName();

  int rankCount() const { return header().rankCount; }
  std::uint64_t collectiveSlotBytes() const { return header().collectiveSlotBytes; }
  std::uint64_t pointToPointSlotBytes() const { return header().pointToPointSlotBytes; }
  RankMailbox& mailbox(int rank);
  ChannelState& channel(int sender, int receiver);
  unsigned char* collectiveStaging(int rank);
  unsigned char* pointToPointStaging(int sender, int receiver);

private:
  SharedSegment(std::string name, void* base, std::size_t bytes);
  const SegmentHeader& header() const { return *static_cast<const SegmentHeader*>(base_); }
  unsigned char* bytes() const { return static_cast<unsigned char*>(base_); }

  std::string name_;
  void* base_;
  std::size_t mappedBytes_;
};

} // namespace streamrace::emu::nccl
