// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Watching the ordering work: every step an actor takes and every join that brings one actor's
// past into another, as the rules of docs/semantics.md make them. Exports (Perfetto flows, DOT
// graphs) and `streamrace explain` attach one to draw and narrate the happens-before graph
// from the same rules that decide findings, rather than deriving the edges a second time.
#pragma once

#include "streamrace/engine/vector_clock.h"

#include <cstdint>

namespace streamrace {

// Why one actor's past became part of another's.
enum class JoinKind : std::uint8_t {
  EnqueueAfterHost,     // rule 1: a stream op comes after what its enqueuing thread did
  EventWait,            // rule 4: a stream waits on an event recorded on another stream
  HostSyncStream,       // rule 5: the host waits for a stream (also synchronous copies/sets)
  HostSyncEvent,        // rule 5: the host waits for an event
  HostSyncDevice,       // rules 5, 7, 8: the host waits for every stream of a device
  LegacyWaitsForStream, // rule 6: the legacy default stream waits for a blocking stream
  StreamWaitsForLegacy, // rule 6: a blocking stream waits for the legacy default stream
  Collective,           // rule 14: the k-th collective on a communicator, across its ranks
  SendReceive,          // rule 14: a receive comes after its matching send
  ProgramOrder,         // rule 1: one OS thread acting for another rank (several devices)
  HostHandOff,          // rule 16: a host thread acquired what another released (mutex, ...)
  Merge,                // an engine-built join (NCCL groups over several streams, graph lanes)
};

const char* join_kind_name(JoinKind kind);

struct OrderingJoin {
  JoinKind kind = JoinKind::Merge;
  ActorId from = 0;
  // With from_step, the join carries what `from` knew right after its step `from_epoch` (an
  // event's snapshot, a contribution to a meeting); otherwise it carries everything `from`
  // knows now, and `from_epoch` is its latest step.
  Epoch from_epoch = 0;
  bool from_step = false;
  ActorId to = 0;
  // What the join went through: the event, the awaited stream, the device, the communicator
  // key; 0 when nothing names it.
  std::uint64_t handle = 0;
};

class OrderingObserver {
public:
  virtual ~OrderingObserver() = default;
  // The actor advanced to `epoch`: an op was enqueued on a stream (or a graph lane), or a host
  // thread acted itself (a host access, a free).
  virtual void step(ActorId actor, Epoch epoch) = 0;
  virtual void join(const OrderingJoin& join) = 0;
};

} // namespace streamrace
