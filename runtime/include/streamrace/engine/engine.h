// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The happens-before engine: events in, findings out. Single-threaded by design: a front end
// that sees events on many threads serializes them into one Engine (or one per rank).
#pragma once

#include "streamrace/engine/allocations.h"
#include "streamrace/engine/event.h"
#include "streamrace/engine/findings.h"
#include "streamrace/engine/options.h"
#include "streamrace/engine/ordering.h"
#include "streamrace/engine/shadow_memory.h"

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace streamrace {

struct EngineStats {
  std::uint64_t events = 0;
  std::uint64_t ops = 0;
  std::uint64_t accesses = 0;
  std::uint64_t history_evictions = 0;
};

// A window in which accesses went unchecked (AccessChecks): a front end fell behind the
// program. Ordering went on; races that an unchecked access took part in may be missed.
struct CheckingPause {
  RankId rank = 0; // of the event that paused
  std::uint32_t address_space = 0;
  std::uint64_t begin_ns = 0;
  std::uint64_t end_ns = 0; // the resume, else the last unchecked access
  std::uint64_t unchecked_accesses = 0;
  // How long the program's calls waited, in all, for the front end to catch up (its resume
  // says).
  std::uint64_t caller_wait_ns = 0;
  bool resumed = false;
};

// Which process and CUDA device a rank stands for (RankDevice); ranks of older traces have none.
struct RankIdentity {
  std::uint32_t address_space = 0;
  RankId process_rank = 0;
  DeviceId device = 0;
};

class Engine {
public:
  using WarningSink = std::function<void(std::string_view)>;

  explicit Engine(Options options = {}, WarningSink warn = {});

  void process(const Event& event);
  // The same as processing each in turn, faster: while one event runs, the memory the next
  // ones will check is fetched.
  void process(std::span<const Event> events);
  // End of the program or trace: settles findings that waited for cross-rank meetings and
  // reports communicators whose ranks issued different numbers of collectives.
  void finish();

  const FindingSet& findings() const { return findings_; }
  // Settling (docs/scaling.md): check only the accesses of `local_ranks` (by rank), with
  // clocks projected on their actors; every other rank contributes ordering only. Before the
  // first event.
  void check_only(std::vector<bool> local_ranks) { ordering_.project(std::move(local_ranks)); }
  // Occurrences of finding `index` that another replay of the same job found on `ranks`.
  void add_occurrences(std::size_t index, std::uint64_t count, std::span<const RankId> ranks) {
    findings_.add_occurrences(index, count, ranks);
  }
  const Ordering& ordering() const { return ordering_; }
  // Exports and `explain` attach an observer here to see the edges the rules create.
  Ordering& ordering() { return ordering_; }
  const std::vector<NameId>& nvtx_path(std::uint32_t id) const { return nvtx_paths_[id]; }
  const EngineStats& stats() const { return stats_; }
  const std::vector<CheckingPause>& checking_pauses() const { return checking_pauses_; }
  const Options& options() const { return options_; }
  const std::map<RankId, RankIdentity>& rank_identities() const { return rank_identities_; }

private:
  // A finding whose current access ran under a clock that still waits for a meeting with
  // another rank: the meeting's outcome may yet order the two accesses. Or whose previous access
  // ran after a host acquire whose release has not arrived (rule 16): the release may yet order
  // the current access before it.
  struct PendingFinding {
    Finding finding;
    ActorId previous_actor = 0;
    Epoch previous_epoch = 0;
    VectorClock waiting; // only its pending meetings matter
    bool previous_waits = false;
    ActorId current_actor = 0;
    Epoch current_epoch = 0;
  };
  struct CapturedGraph {
    RankId rank = 0;
    std::vector<StreamHandle> streams; // every stream the capture reached, origin first
    std::vector<Event> events;
  };
  struct Executable {
    // Shared: a graph handle may be captured again (or freed and reused) while executables made
    // from the graph it named still run it.
    std::shared_ptr<const CapturedGraph> graph;
    std::uint64_t serial = 0;
  };

  // An upcoming event's first accesses (no space where it has none), whose lookup slots are
  // fetched into the cache, for the intervals they name to be fetched a few events later.
  struct WarmedAccess {
    const ShadowSpace* space = nullptr;
    Address begin = 0;
  };
  using WarmedAccesses = std::array<WarmedAccess, 2>;
  WarmedAccesses warm_accesses(const Event& event) const;
  template <typename Payload> void handle(const Event& event, const Payload& payload);
  // Rule 10 (and 10a): stream-ordered memory lives from this point of `stream` on: the
  // allocation's actor and epoch are set, and the range's history starts with its birth.
  void begin_life_on_stream(const EventHeader& header, ThreadState& thread, StreamState& stream,
                            Allocation& allocation);
  // A caching allocator's blocks (caching_blocks.cpp).
  void handle_block(const EventHeader& header, ThreadState& thread, const BlockAlloc& alloc);
  void handle_block(const EventHeader& header, ThreadState& thread, const BlockStreamUse& use);
  void handle_block(const EventHeader& header, ThreadState& thread, const BlockFree& free);

  // engine.cpp: runs an op's accesses under `clock` as (actor, epoch), reporting conflicts.
  void run_accesses(const EventHeader& header, const ThreadState& thread, ActorId actor,
                    Epoch epoch, const VectorClock& clock, OpKind kind, std::uint8_t detail,
                    std::span<const Access> accesses);
  void trim_history();
  void pause_checks(const EventHeader& header, const AccessChecks& change);
  void copy_accesses(const Copy& copy, std::vector<Access>& accesses) const;
  bool copy_waits_for_host(const Copy& copy, std::uint32_t address_space) const;
  // The rows of a copy's or set's side: `depth` slices of `height` rows of `width` bytes.
  struct RowLayout {
    std::uint64_t width = 0, height = 1, pitch = 0, depth = 1, slice_pitch = 0;
  };
  void append_rows(std::vector<Access>& out, Address base, const RowLayout& layout,
                   AccessMode mode) const;
  void set_nvtx_path(ThreadState& thread);

  // engine_findings.cpp
  void report(const EventHeader& header, const AccessRecord& current, const Conflict& conflict,
              const VectorClock& clock);
  void add_finding(Finding finding, const AccessRecord& previous, const AccessRecord& current,
                   const VectorClock& clock);
  void recheck_pending();
  AccessSide side_of(const AccessRecord& access) const;
  SideIdentity identity_of(const AccessRecord& access) const; // side_of's, without the copy
  FixSuggestion suggest_fix(const AccessRecord& previous, const AccessRecord& current) const;

  // engine_graphs.cpp. Nearly every op runs for real: the check is inline, the recording is not.
  bool capture_if_capturing(const Event& event, StreamState& stream) {
    return stream.capture != 0 && capture(event, stream);
  }
  bool capture(const Event& event, StreamState& stream);
  // A wait on an event recorded inside a capture: true when it pulled `stream` into it.
  bool join_capture(const Event& event, StreamState& stream, const EventState& awaited);
  void begin_capture(ThreadState& thread, const CaptureBegin& begin);
  void end_capture(const EventHeader& header, ThreadState& thread, const CaptureEnd& end);
  void instantiate_graph(std::uint32_t address_space, const GraphInstantiate& instantiate);
  void launch_graph(const Event& event, const GraphLaunch& launch);
  void destroy_executable(std::uint32_t address_space, const GraphExecDestroy& destroy);
  // A replayed host node's accesses in this launch, as ops of its lane right after it.
  void run_host_node(const EventHeader& launch, const HostFunction& node,
                     const std::vector<Event>& accesses);

  // engine_nccl.cpp
  void run_group(ThreadState& thread, std::span<const Event> calls);

  Options options_;
  WarningSink warn_;
  Ordering ordering_;
  ShadowMemory shadow_;
  AllocationTable allocations_;
  // Caching-allocator blocks live inside allocations (a block may start where its segment does),
  // so they have a table of their own, consulted first for a report's memory context.
  AllocationTable blocks_;
  struct BlockState {
    StreamHandle stream = 0;                 // the stream it was handed out for
    std::vector<StreamHandle> used_on;       // record_stream
    std::optional<std::size_t> freed_in_use; // the finding of its last free, until reuse
  };
  std::map<std::pair<std::uint32_t, Address>, BlockState> block_states_;
  FindingSet findings_;
  std::vector<PendingFinding> pending_;
  std::vector<Conflict> conflicts_;     // scratch, reused by every access
  std::vector<Access> accesses_;        // scratch for copies, sets and collectives
  std::vector<CommHandle> group_comms_; // scratch for run_group
  std::vector<const Event*> group_members_;
  std::vector<StreamState*> group_member_streams_; // each member's, in order
  std::vector<StreamState*> group_streams_;        // each stream once
  std::uint64_t op_counter_ = 0;
  bool history_warned_ = false;
  EngineStats stats_;
  std::vector<CheckingPause> checking_pauses_;
  std::map<RankId, RankIdentity> rank_identities_;
  // Address spaces whose checks are paused, with their pause's index in checking_pauses_.
  std::unordered_map<std::uint32_t, std::size_t> open_pauses_;

  std::vector<std::vector<NameId>> nvtx_paths_{{}};
  std::map<std::vector<NameId>, std::uint32_t> nvtx_path_ids_{{{}, 0}};

  std::uint32_t capture_serial_ = 0;
  std::unordered_map<std::uint32_t, CapturedGraph> captures_;
  // Graphs and executables are keyed by address space (a process), not rank: their handles are
  // the process's, and a process driving several devices instantiates one device's graph while
  // another is current. A launch runs as the rank of its stream (rule 11).
  std::unordered_map<RankHandleKey, std::shared_ptr<const CapturedGraph>, RankHandleHash> graphs_;
  std::unordered_map<RankHandleKey, Executable, RankHandleHash> executables_;
  std::uint64_t executable_serial_ = 0;
  // What host nodes touched in each executable's next launch (HostNodeAccess), until it.
  std::unordered_map<RankHandleKey, std::vector<Event>, RankHandleHash> host_node_accesses_;
};

} // namespace streamrace
