// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ordering half of the engine: who the actors are (streams, host threads, graph lanes of
// every rank) and how the rules of docs/semantics.md move their vector clocks. Memory is not its
// business: it answers "which clock does this op run under".
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/engine/findings.h"
#include "streamrace/engine/ordering_observer.h"
#include "streamrace/engine/vector_clock.h"

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace streamrace {

struct RankHandleKey {
  RankId rank = 0;
  std::uint64_t handle = 0;
  bool operator==(const RankHandleKey&) const = default;
};
struct RankHandleHash {
  std::size_t operator()(const RankHandleKey& key) const {
    return std::hash<std::uint64_t>()(key.handle * 0x9E3779B97F4A7C15ull ^ key.rank);
  }
};

struct DeviceState;

struct StreamState {
  ActorId actor = 0;
  DeviceState* device_state = nullptr; // the device's streams and legacy-stream bookkeeping
  RankId rank = 0;
  StreamHandle handle = 0;
  DeviceId device = 0;
  StreamKind kind = StreamKind::Blocking;
  bool graph_lane = false;
  NameId name = 0;
  VectorClock clock;
  std::uint64_t version = 0;     // bumps whenever `clock` changes
  std::uint64_t legacy_seen = 0; // the device's legacy-stream version last joined
  ActorId joined_thread = 0;     // the thread whose clock was joined last, and its version
  std::uint64_t joined_thread_version = ~0ull;
  std::uint32_t capture = 0;          // the capture this stream is recording into; 0 = executing
  EventHandle last_event = 0;         // the event recorded on this stream most recently
  std::uint32_t last_event_space = 0; // the address space (process) whose handle it is
  std::optional<UnrecordedWait> unrecorded_wait;
  // The latest of its host functions whose hand-offs are still to come (Ordering::begin_late_run).
  std::shared_ptr<Meeting> late_run;

  bool takes_part_in_legacy_sync() const {
    return kind == StreamKind::Blocking || kind == StreamKind::PerThreadDefault;
  }
};

struct DeviceState {
  std::vector<StreamState*> streams;
  StreamState* legacy = nullptr;
  std::uint64_t legacy_version = 0;
  std::unordered_map<ActorId, std::uint64_t> legacy_joined; // stream actor -> version
};

struct ThreadState;

// An OS thread of one process. A process that drives several devices makes each one its own
// rank, and its threads act for several ranks in turn: one program order all the same.
struct HostThread {
  ThreadState* acted_last = nullptr; // which rank's side of the thread acted last
};

// A host thread as one rank sees it.
struct ThreadState {
  ActorId actor = 0;
  RankId rank = 0;
  ThreadId id = 0;
  HostThread* host = nullptr; // set at the thread's first event
  VectorClock clock;
  std::uint64_t version = 0;
  DeviceId device = 0;
  std::vector<NameId> nvtx_stack;
  std::uint32_t nvtx_path = 0;
  int group_depth = 0;
  std::vector<Event> group_calls; // NCCL calls between ncclGroupStart and ncclGroupEnd
};

struct EventState {
  bool recorded = false;
  VectorClock snapshot;
  StreamHandle recorded_on = 0;
  NameId name = 0;
  std::uint32_t capture = 0; // recorded inside this capture: a fork point of the graph
  // The step whose clock `snapshot` is: the recording stream's clock right after that step.
  ActorId recorded_actor = 0;
  Epoch recorded_epoch = 0;
  EventHandle handle = 0; // set only while an observer watches
};

struct ActorInfo {
  bool is_stream = true;
  RankId rank = 0;
  std::uint64_t handle = 0; // stream handle or thread id
  DeviceId device = 0;
  StreamKind stream_kind = StreamKind::Blocking;
  bool graph_lane = false;
  NameId name = 0;
};

struct CommState {
  CommKey key = 0;
  std::int32_t nranks = 1;
  std::int32_t comm_rank = 0;
  std::uint64_t collectives = 0;
  std::unordered_map<std::int32_t, std::uint64_t> sends_to;
  std::unordered_map<std::int32_t, std::uint64_t> receives_from;
};

// A cross-rank meeting: the k-th collective on a communicator (every rank contributes its
// stream's clock and acquires the join), or the k-th send from one rank to another (the
// sender contributes, the receiver acquires).
struct Meeting {
  bool complete = false;
  VectorClock outcome;
  int expected_contributions = 0;
  int contributions = 0;
  int expected_acquirers = 0;
  std::vector<ActorId> acquirers;
  std::optional<CollectiveCall> first_call;
  bool disagreement_reported = false;
  CommKey comm = 0;
  bool send_receive = false;
  // A host hand-off still to come (rule 16): the object whose release an acquire arrived
  // before, or the host function run whose hand-offs come after its launch; 0 for a collective
  // or a send. And each acquirer's step when it began waiting.
  std::uint64_t hand_off = 0;
  std::vector<Epoch> acquired_at;
  // Filled only while an observer watches: the steps whose clocks make up `outcome`.
  std::vector<std::pair<ActorId, Epoch>> contributors;
};

// A host release or acquire of a synchronization object of a process (rule 16).
struct HostHandOff {
  std::uint32_t address_space = 0;
  std::uint64_t object = 0;
  std::uint64_t sequence = 0;
  std::uint64_t run = 0; // a late host function run's (HostFunction::run)
};

// What a collective's arrival at its meeting found.
struct Arrival {
  std::shared_ptr<Meeting> completed;
  std::optional<CollectiveDisagreement> disagreement;
};

class Ordering {
public:
  ThreadState& thread(RankId rank, ThreadId id) {
    if (rank < recent_.size() && recent_[rank]) {
      if (ThreadState* last = recent_[rank]->thread; last && last->id == id) return *last;
    }
    return lookup_thread(rank, id);
  }
  // Rule 1 across ranks: what an OS thread did for one rank comes before what it does next
  // for another. Called for every event the thread makes, before the event's own rules.
  void continue_program_order(ThreadState& thread, std::uint32_t address_space) {
    if (thread.host && thread.host->acted_last == &thread) [[likely]]
      return;
    switch_ranks(thread, address_space);
  }
  // Resolves the default-stream handles against the thread's current device; an unknown
  // handle (a stream created before streamrace attached) becomes a blocking stream.
  StreamState& stream(ThreadState& thread, StreamHandle handle) {
    if (handle > kPerThreadStream && thread.rank < recent_.size() && recent_[thread.rank]) {
      if (StreamState* last = recent_[thread.rank]->streams[recent_slot(handle)];
          last && last->handle == handle)
        return *last;
    }
    return lookup_stream(thread, handle);
  }
  // A graph lane is a stream the engine makes for a captured graph's branch, not the program.
  enum class StreamOrigin { Program, GraphLane };
  StreamState& create_stream(ThreadState& thread, const StreamCreate& create,
                             StreamOrigin origin = StreamOrigin::Program);
  void destroy_stream(ThreadState& thread, StreamHandle handle);
  // Events are named by address space (a process), not rank: a process records an event on one
  // device's stream and waits for it on another's (rule 15).
  EventState& event(RankId rank, EventHandle handle) {
    if (EventState* recent = recent_event(rank, handle)) return *recent;
    return add_event(rank, handle);
  }
  EventState* find_event(RankId rank, EventHandle handle) {
    if (EventState* recent = recent_event(rank, handle)) return recent;
    return lookup_event(rank, handle);
  }
  const EventState* find_event(RankId rank, EventHandle handle) const;
  StreamState* find_stream(RankId rank, StreamHandle handle);
  const StreamState* stream_of(ActorId actor) const {
    const auto& streams = is_foreign(actor) ? foreign_streams_ : stream_by_actor_;
    const ActorId index = actor & ~kForeignActor;
    return index < streams.size() ? streams[index] : nullptr;
  }
  void destroy_event(RankId rank, EventHandle handle);

  // Rules 1, 2 and 6 for an op enqueued on `stream` by `thread`: joins what must come before
  // it, then advances the stream. Returns the op's epoch; the stream's clock is its clock.
  Epoch enqueue(StreamState& stream, ThreadState& thread) {
    prepare(stream, thread);
    return advance(stream);
  }
  // The joins of enqueue without the tick (ops of an NCCL group are posted together). Most
  // ops go to a non-blocking stream that already saw everything its thread did: nothing to
  // join, decided inline.
  void prepare(StreamState& stream, ThreadState& thread) {
    if (stream.kind != StreamKind::NonBlocking || !stream.clock.pending().empty() ||
        stream.joined_thread != thread.actor || stream.joined_thread_version != thread.version)
      join_predecessors(stream, thread);
  }
  Epoch advance(StreamState& stream) {
    retire_if_exhausted(stream.actor, stream.clock);
    const Epoch epoch = stream.clock.tick(stream.actor);
    ++stream.version;
    if (stream.kind == StreamKind::LegacyDefault) ++stream.device_state->legacy_version;
    if (observer_) [[unlikely]]
      observer_->step(stream.actor, epoch);
    return epoch;
  }
  // The host thread does something itself (touches memory, frees): its own clock advances.
  Epoch host_action(ThreadState& thread);
  void join_into(StreamState& stream, const VectorClock& clock);

  // Rule 16: a host thread releases a synchronization object of its process (its clock goes
  // into the object's) and another acquires it (joins the object's clock). Objects are named by
  // address; a new object at the address of a destroyed one inherits its releases (orders more,
  // never reports more). `sequence` numbers the release, and names the release the acquire
  // followed (0: none named); an acquire of a release still to come waits for it as for a
  // meeting. A release returns whether it completed such a wait.
  bool release(ThreadState& thread, const HostHandOff& hand_off);
  void acquire(ThreadState& thread, const HostHandOff& hand_off);
  // The same by a host function of `stream`, at its place in the stream.
  bool release(StreamState& stream, const HostHandOff& hand_off);
  void acquire(StreamState& stream, const HostHandOff& hand_off);
  // A host function of `stream` whose hand-offs come after its launch, at its place in the
  // stream (`run`: HostFunction::run): the stream's later work waits for the run's end as for a
  // meeting, and its hand-offs are placed where it was launched. end_late_run returns whether
  // the run was known (what waited for it may now be ordered).
  void begin_late_run(StreamState& stream, std::uint32_t address_space, std::uint64_t run);
  bool release_in_run(const HostHandOff& hand_off);
  void acquire_in_run(const HostHandOff& hand_off);
  bool end_late_run(std::uint32_t address_space, std::uint64_t run);

  // The host releases a step of `actor` came after without them having arrived: what they
  // carry may order other work before the step. awaits_hand_off: whether there are any.
  std::vector<std::shared_ptr<Meeting>> awaited_hand_offs(ActorId actor, Epoch epoch) const;
  bool awaits_hand_off(ActorId actor, Epoch epoch) const {
    const StreamState* stream = stream_of(actor);
    return stream != nullptr && !stream->clock.pending().empty() &&
           !awaited_hand_offs(actor, epoch).empty();
  }

  // Rules 3 and 4.
  void record(EventHandle handle, EventState& event, StreamState& stream, ThreadState& thread);
  void wait(StreamState& stream, const EventState& event, ThreadState& thread);
  // Rule 5 (and the implicit device synchronizations of rules 7 and 8).
  void host_waits_for(ThreadState& thread, StreamState& stream);
  void host_waits_for(ThreadState& thread, const EventState& event);
  // Every stream of the device, or only the blocking ones: those that take part in
  // legacy-stream synchronization.
  enum class DeviceStreams { All, Blocking };
  void host_waits_for_device(ThreadState& thread, DeviceId device,
                             DeviceStreams streams = DeviceStreams::All);

  // Rule 14: the stream's part of the meeting `key` (expected parties per the call).
  Arrival arrive_collective(StreamState& stream, const CommState& comm, std::uint64_t sequence,
                            const CollectiveCall& call);
  std::shared_ptr<Meeting> arrive_send(StreamState& stream, const CommState& comm,
                                       std::int32_t peer, std::uint64_t sequence);
  void arrive_receive(StreamState& stream, const CommState& comm, std::int32_t peer,
                      std::uint64_t sequence);
  // Folds the outcome of every completed meeting the clock waits for into it.
  static void settle(VectorClock& clock);

  CommState* comm(RankId rank, CommHandle handle);
  void init_comm(RankId rank, const CommInit& init);
  void destroy_comm(RankId rank, CommHandle handle);
  // Communicators whose ranks all initialized here but issued different numbers of
  // collectives: one disagreement each.
  std::vector<CollectiveDisagreement> count_mismatches() const;

  // Exports watch the rules at work through this; null (the default) costs one branch.
  void set_observer(OrderingObserver* observer) { observer_ = observer; }

  // Projection (settling a merged trace, docs/scaling.md): only the actors of `local_ranks`
  // have clock components; every other rank's actors are foreign (kForeignActor). A race between
  // two local accesses reads local components only, so it is decided exactly as without the
  // projection, at clocks as wide as the local actors rather than the job. Before any event.
  void project(std::vector<bool> local_ranks);
  bool is_local(RankId rank) const {
    return !projecting_ || (rank < local_ranks_.size() && local_ranks_[rank]);
  }

  const ActorInfo& actor(ActorId id) const {
    return is_foreign(id) ? foreign_actors_[id & ~kForeignActor] : actors_[id];
  }
  std::size_t actor_count() const { return actors_.size(); } // local actors: ids 0 to count - 1
  void name_stream(ThreadState& thread, StreamHandle handle, NameId name);

private:
  template <typename Holder> bool release_by(Holder& holder, const HostHandOff& hand_off);
  template <typename Holder> void acquire_by(Holder& holder, const HostHandOff& hand_off);
  // Joins `clock`, `releaser`'s at `epoch`, into the object; completes the acquires that waited
  // for this release, returning whether there were any.
  bool release_clock(const VectorClock& clock, ActorId releaser, Epoch epoch,
                     const HostHandOff& release);
  struct HandOff;
  // The meeting an acquire of a release that has not arrived waits for; `actor` waits from
  // `since`.
  std::shared_ptr<Meeting>& awaited_release(HandOff& hand_off, const HostHandOff& acquire,
                                            ActorId actor, Epoch since);
  struct MeetingKey {
    CommKey comm = 0;
    std::uint64_t sequence = 0;
    std::int32_t from = -1; // send/recv: the sending and receiving comm ranks
    std::int32_t to = -1;
    bool operator==(const MeetingKey&) const = default;
  };
  struct MeetingHash {
    std::size_t operator()(const MeetingKey& k) const {
      return std::hash<std::uint64_t>()(k.comm ^ (k.sequence * 0x9E3779B97F4A7C15ull) ^
                                        (static_cast<std::uint64_t>(k.from) << 40) ^
                                        (static_cast<std::uint64_t>(k.to) << 20));
    }
  };
  struct CommRanks {
    std::int32_t nranks = 0;
    std::unordered_map<std::int32_t, const CommState*> members;
  };

  // What each rank looked up last, direct-mapped by handle: ranks interleave freely, but each
  // keeps using a few threads, streams and events. Ranks are small dense numbers; larger ones
  // (never seen in practice) go to the hash maps every time.
  static constexpr std::size_t kRecentSlots = 64;
  static constexpr RankId kRecentRanks = 4096;
  struct RecentLookups {
    ThreadState* thread = nullptr;
    std::array<StreamState*, kRecentSlots> streams{};
    std::array<std::pair<EventHandle, EventState*>, kRecentSlots> events{};
  };
  static std::size_t recent_slot(std::uint64_t handle) {
    return static_cast<std::size_t>((handle * 0x9E3779B97F4A7C15ull) >> 58) & (kRecentSlots - 1);
  }
  EventState* recent_event(RankId rank, EventHandle handle) {
    if (rank >= recent_.size() || !recent_[rank]) return nullptr;
    const auto& [cached, state] = recent_[rank]->events[recent_slot(handle)];
    return state && cached == handle ? state : nullptr;
  }
  RecentLookups* recent_of(RankId rank);
  ThreadState& lookup_thread(RankId rank, ThreadId id);
  StreamState& lookup_stream(ThreadState& thread, StreamHandle handle);
  EventState& add_event(RankId rank, EventHandle handle);
  EventState* lookup_event(RankId rank, EventHandle handle);

  // Rules 1 and 6: what must come before an op on `stream`.
  void join_predecessors(StreamState& stream, ThreadState& thread);
  ActorId new_actor(const ActorInfo& info);
  ActorInfo& info_of(ActorId id) {
    return is_foreign(id) ? foreign_actors_[id & ~kForeignActor] : actors_[id];
  }
  StreamState*& stream_slot(ActorId id) {
    return is_foreign(id) ? foreign_streams_[id & ~kForeignActor] : stream_by_actor_[id];
  }
  void retire_if_exhausted(ActorId& actor, const VectorClock& clock) {
    if (clock.get(actor) >= kLastEpoch) [[unlikely]]
      retire(actor);
  }
  void retire(ActorId& actor);
  DeviceState& device(RankId rank, DeviceId device);
  // `kind`: LegacyDefault or PerThreadDefault.
  StreamState& default_stream(ThreadState& thread, StreamKind kind);
  std::shared_ptr<Meeting> meeting(const MeetingKey& key, int contributions, int acquirers);
  void contribute(Meeting& meeting, StreamState& stream);
  void acquire(const std::shared_ptr<Meeting>& meeting, StreamState& stream);
  void complete(const MeetingKey& key, const std::shared_ptr<Meeting>& meeting);
  // Marks the meeting complete and folds its outcome into the streams that wait for it.
  void settle_acquirers(Meeting& meeting);
  void forget_if_done(const MeetingKey& key, const Meeting& meeting);
  // settle() for a clock `owner` holds, telling the observer which meetings it folded in.
  void settle_owned(VectorClock& clock, ActorId owner);
  void notify(JoinKind kind, ActorId from, Epoch from_epoch, bool from_step, ActorId to,
              std::uint64_t handle) const;
  void notify_meeting(const Meeting& meeting, ActorId to) const;
  void join_clock(StreamState& stream, const VectorClock& clock);
  void switch_ranks(ThreadState& thread, std::uint32_t address_space);

  std::vector<ActorInfo> actors_;
  std::vector<StreamState*> stream_by_actor_;
  bool projecting_ = false;
  std::vector<bool> local_ranks_;
  std::vector<ActorInfo> foreign_actors_; // by id without kForeignActor
  std::vector<StreamState*> foreign_streams_;
  std::unordered_map<RankHandleKey, ThreadState, RankHandleHash> threads_;
  std::map<std::pair<std::uint32_t, ThreadId>, HostThread> host_threads_; // by process, thread
  std::unordered_map<RankHandleKey, StreamState, RankHandleHash> streams_;
  std::deque<StreamState> default_streams_;
  std::unordered_map<RankHandleKey, StreamState*, RankHandleHash> legacy_streams_; // by device
  std::unordered_map<RankHandleKey, StreamState*, RankHandleHash> per_thread_streams_;
  std::unordered_map<RankHandleKey, EventState, RankHandleHash> events_;
  // What released each synchronization object, by (address space, object): the join of every
  // release so far, and the last releaser's step for explanations. Releases arrive nearly in
  // the order they were made: the latest numbers tell whether an acquire's release has come.
  struct HandOff {
    VectorClock clock;
    ActorId releaser = 0;
    Epoch epoch = 0;
    bool released = false;
    std::array<std::uint64_t, 16> recent_releases{};
    std::size_t release_count = 0;
    std::unordered_map<std::uint64_t, std::shared_ptr<Meeting>> awaited; // by sequence
    bool has_arrived(std::uint64_t sequence) const;
    void note_arrival(std::uint64_t sequence);
  };
  std::unordered_map<RankHandleKey, HandOff, RankHandleHash> hand_offs_;
  // Host function runs whose hand-offs are still to come, by (address space, run): the meeting
  // the stream's later work waits for, and the stream (its actor: a handle reused meanwhile
  // names another) and its clock at the function's place.
  struct LateRun {
    std::shared_ptr<Meeting> meeting;
    VectorClock at_place;
    ActorId stream = 0;
    Epoch place = 0;
  };
  std::unordered_map<RankHandleKey, LateRun, RankHandleHash> late_runs_;
  std::unordered_map<RankHandleKey, DeviceState, RankHandleHash> devices_;
  std::unordered_map<RankHandleKey, CommState, RankHandleHash> comms_;
  std::unordered_map<CommKey, CommRanks> comm_ranks_;
  std::unordered_map<MeetingKey, std::shared_ptr<Meeting>, MeetingHash> meetings_;
  // By rank, made at the rank's first lookup: a process's own replay (settling) sees a few ranks
  // of a wide job, not every rank below them.
  std::vector<std::unique_ptr<RecentLookups>> recent_;
  OrderingObserver* observer_ = nullptr;
};

} // namespace streamrace
