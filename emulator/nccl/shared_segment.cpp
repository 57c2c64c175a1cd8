// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "shared_segment.h"

#include "polling.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace streamrace::emu::nccl {
namespace {

std::uint64_t roundUp(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

struct Offsets {
  std::uint64_t mailboxes;
  std::uint64_t channels;
  std::uint64_t collectiveStaging;
  std::uint64_t pointToPointStaging;
  std::uint64_t total;
};

Offsets offsetsFor(std::uint64_t rankCount, std::uint64_t collectiveSlot, std::uint64_t p2pSlot) {
  Offsets offsets{};
  offsets.mailboxes = roundUp(sizeof(SegmentHeader), 64);
  offsets.channels = offsets.mailboxes + rankCount * sizeof(RankMailbox);
  offsets.collectiveStaging =
      roundUp(offsets.channels + rankCount * rankCount * sizeof(ChannelState), 4096);
  offsets.pointToPointStaging = offsets.collectiveStaging + rankCount * collectiveSlot;
  offsets.total = offsets.pointToPointStaging + rankCount * rankCount * p2pSlot;
  return offsets;
}

Offsets offsetsFor(const SegmentHeader& header) {
  return offsetsFor(static_cast<std::uint64_t>(header.rankCount), header.collectiveSlotBytes,
                    header.pointToPointSlotBytes);
}

std::runtime_error systemError(const std::string& what, const std::string& name) {
  return std::runtime_error(what + " for shared-memory rendezvous " + name + ": " +
                            std::strerror(errno) + " (is /dev/shm mounted and writable?)");
}

void* mapShared(int fd, std::size_t bytes, const std::string& name) {
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    throw systemError("mmap", name);
  }
  return base;
}

} // namespace

std::unique_ptr<SharedSegment> SharedSegment::openOrCreate(const std::string& name, int rankCount,
                                                           Sizes sizes, std::int64_t timeoutMs) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd >= 0) {
    const Offsets offsets = offsetsFor(static_cast<std::uint64_t>(rankCount),
                                       sizes.collectiveSlotBytes, sizes.pointToPointSlotBytes);
    // ftruncate leaves the pages zero and unallocated: staging memory costs nothing until used.
    if (ftruncate(fd, static_cast<off_t>(offsets.total)) != 0) {
      const auto error = systemError("ftruncate", name);
      close(fd);
      shm_unlink(name.c_str());
      throw error;
    }
    void* base = mapShared(fd, offsets.total, name);
    close(fd);
    auto* header = static_cast<SegmentHeader*>(base);
    header->totalBytes = offsets.total;
    header->collectiveSlotBytes = sizes.collectiveSlotBytes;
    header->pointToPointSlotBytes = sizes.pointToPointSlotBytes;
    header->rankCount = rankCount;
    atomicStore(header->magic, kSegmentMagic);
    return std::unique_ptr<SharedSegment>(new SharedSegment(name, base, offsets.total));
  }
  if (errno != EEXIST) {
    throw systemError("shm_open", name);
  }
  fd = shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0) {
    throw systemError("shm_open", name);
  }
  // The creator may not have sized the object yet: wait until the header fits, then for magic.
  struct stat status{};
  const auto headerFits = [&] {
    return fstat(fd, &status) == 0 && status.st_size >= static_cast<off_t>(sizeof(SegmentHeader));
  };
  if (pollUntil(
          headerFits, [] { return false; }, std::chrono::milliseconds(timeoutMs)) !=
      PollOutcome::Ready) {
    close(fd);
    throw std::runtime_error("shared-memory rendezvous " + name +
                             " exists but its creator never initialized it");
  }
  void* headerMapping = mapShared(fd, sizeof(SegmentHeader), name);
  auto* header = static_cast<SegmentHeader*>(headerMapping);
  const PollOutcome initialized =
      pollUntil([&] { return atomicLoad(header->magic) == kSegmentMagic; }, [] { return false; },
                std::chrono::milliseconds(timeoutMs));
  const std::uint64_t total = header->totalBytes;
  const int createdRankCount = header->rankCount;
  munmap(headerMapping, sizeof(SegmentHeader));
  if (initialized != PollOutcome::Ready) {
    close(fd);
    throw std::runtime_error("shared-memory rendezvous " + name +
                             " exists but its creator never initialized it");
  }
  if (createdRankCount != rankCount) {
    close(fd);
    throw std::invalid_argument("nranks=" + std::to_string(rankCount) +
                                " differs from nranks=" + std::to_string(createdRankCount) +
                                " passed by the rank that created the communicator");
  }
  void* base = mapShared(fd, total, name);
  close(fd);
  return std::unique_ptr<SharedSegment>(new SharedSegment(name, base, total));
}

SharedSegment::SharedSegment(std::string name, void* base, std::size_t bytes)
    : name_(std::move(name)), base_(base), mappedBytes_(bytes) {}

SharedSegment::~SharedSegment() {
  munmap(base_, mappedBytes_);
}

void SharedSegment::unlinkName() {
  shm_unlink(name_.c_str());
}

RankMailbox& SharedSegment::mailbox(int rank) {
  return reinterpret_cast<RankMailbox*>(bytes() + offsetsFor(header()).mailboxes)[rank];
}

ChannelState& SharedSegment::channel(int sender, int receiver) {
  return reinterpret_cast<ChannelState*>(
      bytes() + offsetsFor(header()).channels)[sender * rankCount() + receiver];
}

unsigned char* SharedSegment::collectiveStaging(int rank) {
  return bytes() + offsetsFor(header()).collectiveStaging +
         static_cast<std::uint64_t>(rank) * collectiveSlotBytes();
}

unsigned char* SharedSegment::pointToPointStaging(int sender, int receiver) {
  return bytes() + offsetsFor(header()).pointToPointStaging +
         static_cast<std::uint64_t>(sender * rankCount() + receiver) * pointToPointSlotBytes();
}

} // namespace streamrace::emu::nccl
