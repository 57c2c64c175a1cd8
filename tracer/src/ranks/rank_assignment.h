// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which rank each event belongs to when one process drives several devices (ncclCommInitAll, or
// a thread per device): every device the process uses is its own rank, so collectives meet and
// reports name ranks across devices as they do across processes. Ranks go to devices in the
// order the process first puts work or resources on them (selecting a device is not using it),
// starting at the process's own rank (RANK, else 0): a process with one device keeps its
// launcher's rank; a process that drives devices 0..n-1 in order gets ranks 0..n-1, the ranks
// ncclCommInitAll gives them. Under a launcher of P processes the ranks of one process are P
// apart (RANK, RANK + P, ...), so processes that each drive several devices give out ranks no
// other process gives (not NCCL's numbering, which no process can know alone). Events that use no
// device take the rank of the device they name when it has one, else the process's first rank.
//
// An event's device is the one its work runs on: a stream's device (the thread's current device
// when the stream was created), a communicator's device, an event's or an allocation's device;
// else the calling thread's current device. Runs on the tracer thread, in event order.
#pragma once

#include "streamrace/engine/event.h"

#include <unordered_map>
#include <vector>

namespace streamrace::tracer {

class RankAssignment {
public:
  explicit RankAssignment(RankId process_rank, RankId stride = 1)
      : process_rank_(process_rank), stride_(stride) {}

  struct Placement {
    RankId rank = 0;
    DeviceId device = 0;
    bool new_rank = false; // the event is the first on its device: the rank was given out now
  };
  // The rank and device of `payload` called on `thread`; learns the devices of what it creates.
  Placement place(ThreadId thread, const Payload& payload);
  RankId rank_of(ThreadId thread, const Payload& payload) { return place(thread, payload).rank; }
  RankId process_rank() const { return process_rank_; }
  // Every rank given out so far, in order.
  const std::vector<RankId>& ranks() const { return ranks_; }

private:
  DeviceId device_of_stream(ThreadId thread, StreamHandle stream) const;
  DeviceId current_device(ThreadId thread) const;
  DeviceId device_of(ThreadId thread, const Payload& payload);
  RankId rank_of_device(DeviceId device, bool& new_rank);

  RankId process_rank_;
  RankId stride_;
  std::unordered_map<ThreadId, DeviceId> current_devices_;
  std::unordered_map<StreamHandle, DeviceId> stream_devices_;
  std::unordered_map<EventHandle, DeviceId> event_devices_;
  std::unordered_map<CommHandle, DeviceId> comm_devices_;
  std::unordered_map<Address, DeviceId> allocation_devices_;
  std::unordered_map<DeviceId, RankId> device_ranks_;
  std::vector<RankId> ranks_;
};

} // namespace streamrace::tracer
