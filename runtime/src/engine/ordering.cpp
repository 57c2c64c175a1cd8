// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ordering's actors and its rules within a process: program order, streams and their
// lookup, enqueues, events, host synchronizations. The meetings across ranks are in
// ordering_meetings.cpp.
#include "streamrace/engine/ordering.h"

#include <algorithm>
#include <type_traits>
#include <utility>

namespace streamrace {

namespace {

std::uint64_t device_key(DeviceId device) {
  return static_cast<std::uint32_t>(device);
}

} // namespace

const char* join_kind_name(JoinKind kind) {
  switch (kind) {
  case JoinKind::EnqueueAfterHost:
    return "enqueue";
  case JoinKind::EventWait:
    return "event-wait";
  case JoinKind::HostSyncStream:
    return "host-sync-stream";
  case JoinKind::HostSyncEvent:
    return "host-sync-event";
  case JoinKind::HostSyncDevice:
    return "host-sync-device";
  case JoinKind::LegacyWaitsForStream:
    return "legacy-waits-for-stream";
  case JoinKind::StreamWaitsForLegacy:
    return "stream-waits-for-legacy";
  case JoinKind::Collective:
    return "collective";
  case JoinKind::SendReceive:
    return "send-receive";
  case JoinKind::ProgramOrder:
    return "program-order";
  case JoinKind::HostHandOff:
    return "host-hand-off";
  case JoinKind::Merge:
    return "merge";
  }
  return "unknown";
}

void Ordering::notify(JoinKind kind, ActorId from, Epoch from_epoch, bool from_step, ActorId to,
                      std::uint64_t handle) const {
  observer_->join(OrderingJoin{.kind = kind,
                               .from = from,
                               .from_epoch = from_epoch,
                               .from_step = from_step,
                               .to = to,
                               .handle = handle});
}

void Ordering::project(std::vector<bool> local_ranks) {
  projecting_ = true;
  local_ranks_ = std::move(local_ranks);
}

ActorId Ordering::new_actor(const ActorInfo& info) {
  if (!is_local(info.rank)) {
    foreign_actors_.push_back(info);
    foreign_streams_.push_back(nullptr);
    return static_cast<ActorId>(foreign_actors_.size() - 1) | kForeignActor;
  }
  actors_.push_back(info);
  stream_by_actor_.push_back(nullptr);
  return static_cast<ActorId>(actors_.size() - 1);
}

Ordering::RecentLookups* Ordering::recent_of(RankId rank) {
  if (rank >= kRecentRanks) return nullptr;
  if (rank >= recent_.size()) recent_.resize(rank + 1);
  if (!recent_[rank]) recent_[rank] = std::make_unique<RecentLookups>();
  return recent_[rank].get();
}

ThreadState& Ordering::lookup_thread(RankId rank, ThreadId id) {
  auto [it, inserted] = threads_.try_emplace(RankHandleKey{rank, id});
  ThreadState& state = it->second;
  if (inserted) {
    state.rank = rank;
    state.id = id;
    state.actor = new_actor(ActorInfo{.is_stream = false, .rank = rank, .handle = id});
  }
  if (RecentLookups* recent = recent_of(rank)) recent->thread = &state;
  return state;
}

void Ordering::switch_ranks(ThreadState& thread, std::uint32_t address_space) {
  if (!thread.host) thread.host = &host_threads_[{address_space, thread.id}];
  ThreadState* previous = std::exchange(thread.host->acted_last, &thread);
  if (!previous || previous == &thread) return;
  if (!previous->clock.pending().empty()) settle_owned(previous->clock, previous->actor);
  thread.clock.join(previous->clock);
  ++thread.version;
  if (observer_) [[unlikely]]
    notify(JoinKind::ProgramOrder, previous->actor, previous->clock.get(previous->actor), false,
           thread.actor, thread.id);
}

DeviceState& Ordering::device(RankId rank, DeviceId device) {
  return devices_[RankHandleKey{rank, device_key(device)}];
}

StreamState& Ordering::default_stream(ThreadState& thread, StreamKind kind) {
  const bool per_thread = kind == StreamKind::PerThreadDefault;
  auto& table = per_thread ? per_thread_streams_ : legacy_streams_;
  const RankHandleKey key{thread.rank, per_thread ? (thread.id << 10) ^ device_key(thread.device)
                                                  : device_key(thread.device)};
  auto it = table.find(key);
  if (it != table.end()) return *it->second;
  StreamState& stream = default_streams_.emplace_back();
  stream.rank = thread.rank;
  stream.handle = per_thread ? kPerThreadStream : kLegacyStream;
  stream.device = thread.device;
  stream.kind = kind;
  stream.actor = new_actor(ActorInfo{.rank = thread.rank,
                                     .handle = stream.handle,
                                     .device = thread.device,
                                     .stream_kind = stream.kind});
  stream_slot(stream.actor) = &stream;
  DeviceState& dev = device(thread.rank, thread.device);
  stream.device_state = &dev;
  dev.streams.push_back(&stream);
  if (!per_thread) dev.legacy = &stream;
  table.emplace(key, &stream);
  return stream;
}

StreamState& Ordering::lookup_stream(ThreadState& thread, StreamHandle handle) {
  if (handle == kNullStream || handle == kLegacyStream)
    return default_stream(thread, StreamKind::LegacyDefault);
  if (handle == kPerThreadStream) return default_stream(thread, StreamKind::PerThreadDefault);
  auto it = streams_.find(RankHandleKey{thread.rank, handle});
  StreamState& found =
      it != streams_.end() ? it->second : create_stream(thread, StreamCreate{.stream = handle});
  // Stream states live in map nodes that are never erased: the pointer stays valid.
  if (RecentLookups* recent = recent_of(thread.rank)) recent->streams[recent_slot(handle)] = &found;
  return found;
}

StreamState& Ordering::create_stream(ThreadState& thread, const StreamCreate& create,
                                     StreamOrigin origin) {
  const bool graph_lane = origin == StreamOrigin::GraphLane;
  const DeviceId dev_id = create.device == kCurrentDevice ? thread.device : create.device;
  StreamState& stream = streams_[RankHandleKey{thread.rank, create.stream}];
  // A handle the program reuses after destroying a stream names a new stream.
  if (stream_of(stream.actor) == &stream) {
    stream_slot(stream.actor) = nullptr;
    std::erase(stream.device_state->streams, &stream);
  }
  stream = StreamState{};
  stream.rank = thread.rank;
  stream.handle = create.stream;
  stream.device = dev_id;
  stream.kind = create.kind;
  stream.graph_lane = graph_lane;
  stream.actor = new_actor(ActorInfo{.rank = thread.rank,
                                     .handle = create.stream,
                                     .device = dev_id,
                                     .stream_kind = create.kind,
                                     .graph_lane = graph_lane});
  stream_slot(stream.actor) = &stream;
  stream.device_state = &device(thread.rank, dev_id);
  stream.device_state->streams.push_back(&stream);
  return stream;
}

void Ordering::destroy_stream(ThreadState&, StreamHandle) {
  // Work already enqueued on a destroyed stream still runs and still takes part in device
  // synchronization, so the stream's state stays until its handle is reused.
}

void Ordering::name_stream(ThreadState& thread, StreamHandle handle, NameId name) {
  StreamState& named = stream(thread, handle);
  named.name = name;
  info_of(named.actor).name = name;
}

EventState& Ordering::add_event(RankId rank, EventHandle handle) {
  EventState& state = events_[RankHandleKey{rank, handle}];
  if (RecentLookups* recent = recent_of(rank))
    recent->events[recent_slot(handle)] = {handle, &state};
  return state;
}

EventState* Ordering::lookup_event(RankId rank, EventHandle handle) {
  auto it = events_.find(RankHandleKey{rank, handle});
  if (it == events_.end()) return nullptr;
  if (RecentLookups* recent = recent_of(rank))
    recent->events[recent_slot(handle)] = {handle, &it->second};
  return &it->second;
}

const EventState* Ordering::find_event(RankId rank, EventHandle handle) const {
  auto it = events_.find(RankHandleKey{rank, handle});
  return it == events_.end() ? nullptr : &it->second;
}

StreamState* Ordering::find_stream(RankId rank, StreamHandle handle) {
  auto it = streams_.find(RankHandleKey{rank, handle});
  return it == streams_.end() ? nullptr : &it->second;
}

void Ordering::destroy_event(RankId rank, EventHandle handle) {
  if (rank < recent_.size() && recent_[rank]) {
    auto& slot = recent_[rank]->events[recent_slot(handle)];
    if (slot.first == handle) slot = {};
  }
  events_.erase(RankHandleKey{rank, handle});
}

void Ordering::join_predecessors(StreamState& stream, ThreadState& thread) {
  if (!stream.clock.pending().empty()) settle_owned(stream.clock, stream.actor);
  // Rule 1: what the enqueuing thread did (and waited for) comes first.
  if (stream.joined_thread != thread.actor || stream.joined_thread_version != thread.version) {
    if (!thread.clock.pending().empty()) settle_owned(thread.clock, thread.actor);
    stream.clock.join(thread.clock);
    if (observer_) [[unlikely]]
      notify(JoinKind::EnqueueAfterHost, thread.actor, thread.clock.get(thread.actor), false,
             stream.actor, thread.id);
    stream.joined_thread = thread.actor;
    stream.joined_thread_version = thread.version;
  }
  // Rule 6: the legacy default stream and the blocking streams of its device wait for each
  // other's earlier work.
  DeviceState& dev = *stream.device_state;
  if (stream.kind == StreamKind::LegacyDefault) {
    for (StreamState* other : dev.streams) {
      if (other == &stream || !other->takes_part_in_legacy_sync()) continue;
      auto [seen, inserted] = dev.legacy_joined.try_emplace(other->actor, ~0ull);
      if (seen->second == other->version) continue;
      stream.clock.join(other->clock);
      seen->second = other->version;
      if (observer_) [[unlikely]]
        notify(JoinKind::LegacyWaitsForStream, other->actor, other->clock.get(other->actor), false,
               stream.actor, other->handle);
    }
  } else if (stream.takes_part_in_legacy_sync() && dev.legacy &&
             stream.legacy_seen != dev.legacy_version) {
    stream.clock.join(dev.legacy->clock);
    stream.legacy_seen = dev.legacy_version;
    if (observer_) [[unlikely]]
      notify(JoinKind::StreamWaitsForLegacy, dev.legacy->actor,
             dev.legacy->clock.get(dev.legacy->actor), false, stream.actor, dev.legacy->handle);
  }
}

void Ordering::retire(ActorId& actor) {
  // The old actor's last epoch stays in every clock that saw it; its successor starts at 0.
  const ActorId successor = new_actor(info_of(actor));
  stream_slot(successor) = stream_slot(actor);
  stream_slot(actor) = nullptr;
  actor = successor;
}

Epoch Ordering::host_action(ThreadState& thread) {
  if (!thread.clock.pending().empty()) settle_owned(thread.clock, thread.actor);
  ++thread.version;
  retire_if_exhausted(thread.actor, thread.clock);
  const Epoch epoch = thread.clock.tick(thread.actor);
  if (observer_) [[unlikely]]
    observer_->step(thread.actor, epoch);
  return epoch;
}

void Ordering::join_clock(StreamState& stream, const VectorClock& clock) {
  stream.clock.join(clock);
  ++stream.version;
}

void Ordering::join_into(StreamState& stream, const VectorClock& clock) {
  if (observer_) [[unlikely]] {
    // An engine-built clock names no single source: every actor whose later steps it brings
    // is one, at the step it brings (a clock holding that step holds that step's past too).
    for (ActorId actor = 0; actor < clock.size(); ++actor)
      if (clock.get(actor) > stream.clock.get(actor) && actor != stream.actor)
        notify(JoinKind::Merge, actor, clock.get(actor), true, stream.actor, 0);
  }
  join_clock(stream, clock);
}

void Ordering::record(EventHandle handle, EventState& event, StreamState& stream,
                      ThreadState& thread) {
  enqueue(stream, thread);
  event.recorded = true;
  event.snapshot = stream.clock;
  event.recorded_on = stream.handle;
  stream.last_event = handle;
  event.recorded_actor = stream.actor;
  event.recorded_epoch = stream.clock.get(stream.actor);
  if (observer_) [[unlikely]]
    event.handle = handle;
}

void Ordering::wait(StreamState& stream, const EventState& event, ThreadState& thread) {
  prepare(stream, thread);
  if (event.recorded) {
    // Every clock holding the recorded step got it by joining the recording stream's clock
    // at or after that step, so it already holds the whole snapshot; only meetings the
    // snapshot still waits for could add anything. Streams that wait on the same events over
    // and over skip the join.
    if (!event.snapshot.pending().empty() ||
        !stream.clock.covers(event.recorded_actor, event.recorded_epoch)) {
      stream.clock.join(event.snapshot);
      ++stream.version;
    }
    if (observer_) [[unlikely]]
      notify(JoinKind::EventWait, event.recorded_actor, event.recorded_epoch, true, stream.actor,
             event.handle);
  }
}

bool Ordering::HandOff::has_arrived(std::uint64_t sequence) const {
  if (sequence == 0) return true;
  const std::size_t kept = std::min(release_count, recent_releases.size());
  const auto last = recent_releases.begin() + static_cast<std::ptrdiff_t>(kept);
  if (std::find(recent_releases.begin(), last, sequence) != last) return true;
  // Older than every release kept: it arrived long ago (releases arrive nearly in order).
  return kept == recent_releases.size() &&
         sequence < *std::min_element(recent_releases.begin(), recent_releases.end());
}

void Ordering::HandOff::note_arrival(std::uint64_t sequence) {
  if (sequence == 0) return;
  recent_releases[release_count % recent_releases.size()] = sequence;
  ++release_count;
}

// A host thread and a stream (for its host functions) release and acquire alike: `holder` is
// either (`is_stream` tells the observer which).
template <typename Holder> bool Ordering::release_by(Holder& holder, const HostHandOff& release) {
  if (!holder.clock.pending().empty()) settle_owned(holder.clock, holder.actor);
  return release_clock(holder.clock, holder.actor, holder.clock.get(holder.actor), release);
}

bool Ordering::release_clock(const VectorClock& clock, ActorId releaser, Epoch epoch,
                             const HostHandOff& release) {
  HandOff& hand_off = hand_offs_[RankHandleKey{release.address_space, release.object}];
  hand_off.clock.join(clock);
  hand_off.releaser = releaser;
  hand_off.epoch = epoch;
  hand_off.released = true;
  hand_off.note_arrival(release.sequence);
  const auto awaited = hand_off.awaited.find(release.sequence);
  if (awaited == hand_off.awaited.end()) return false;
  const std::shared_ptr<Meeting> meeting = std::move(awaited->second);
  hand_off.awaited.erase(awaited);
  meeting->outcome = hand_off.clock;
  if (observer_) [[unlikely]]
    meeting->contributors.emplace_back(hand_off.releaser, hand_off.epoch);
  settle_acquirers(*meeting);
  return true;
}

std::shared_ptr<Meeting>& Ordering::awaited_release(HandOff& hand_off, const HostHandOff& acquire,
                                                    ActorId actor, Epoch since) {
  std::shared_ptr<Meeting>& meeting = hand_off.awaited[acquire.sequence];
  if (!meeting) {
    meeting = std::make_shared<Meeting>();
    meeting->expected_contributions = 1;
    meeting->hand_off = acquire.object;
  }
  meeting->acquirers.push_back(actor);
  meeting->acquired_at.push_back(since);
  return meeting;
}

template <typename Holder> void Ordering::acquire_by(Holder& holder, const HostHandOff& acquire) {
  constexpr bool is_stream = std::is_same_v<Holder, StreamState>;
  const RankHandleKey key{acquire.address_space, acquire.object};
  // An object nothing released, nor is awaited to, orders nothing and needs no entry.
  if (acquire.sequence == 0 && !hand_offs_.contains(key)) return;
  HandOff& hand_off = hand_offs_[key];
  if (!hand_off.has_arrived(acquire.sequence))
    holder.clock.add_pending(
        awaited_release(hand_off, acquire, holder.actor, holder.clock.get(holder.actor)));
  if (!hand_off.released) return;
  holder.clock.join(hand_off.clock);
  settle_owned(holder.clock, holder.actor);
  ++holder.version;
  if (observer_) [[unlikely]]
    notify(JoinKind::HostHandOff, hand_off.releaser, hand_off.epoch, is_stream, holder.actor,
           acquire.object);
}

void Ordering::begin_late_run(StreamState& stream, std::uint32_t address_space, std::uint64_t run) {
  LateRun& late = late_runs_[RankHandleKey{address_space, run}];
  late.meeting = std::make_shared<Meeting>();
  late.meeting->expected_contributions = 1;
  late.meeting->hand_off = run;
  late.place = stream.clock.get(stream.actor);
  late.meeting->acquirers.push_back(stream.actor);
  late.meeting->acquired_at.push_back(late.place);
  late.at_place = stream.clock;
  late.stream = stream.actor;
  // A stream's host functions run in its order, so its runs end in that order: the stream waits
  // for its latest run only, which waits for the one before. Clocks stay short while many runs
  // are out (a loop enqueueing callbacks).
  if (stream.late_run && !stream.late_run->complete) {
    late.meeting->outcome.add_pending(stream.late_run);
    stream.clock.remove_pending(stream.late_run.get());
  }
  stream.late_run = late.meeting;
  stream.clock.add_pending(late.meeting);
}

// What the run acquired is what the stream's work after it learns when the run ends; until
// then that work waits for the run (and, through it, for any release still to come).
void Ordering::acquire_in_run(const HostHandOff& acquire) {
  const auto found = late_runs_.find(RankHandleKey{acquire.address_space, acquire.run});
  if (found == late_runs_.end()) return;
  LateRun& late = found->second;
  HandOff& hand_off = hand_offs_[RankHandleKey{acquire.address_space, acquire.object}];
  if (!hand_off.has_arrived(acquire.sequence)) {
    const std::shared_ptr<Meeting> awaited =
        awaited_release(hand_off, acquire, late.stream, late.place);
    late.meeting->outcome.add_pending(awaited);
    if (StreamState* stream = stream_slot(late.stream)) stream->clock.add_pending(awaited);
  }
  if (!hand_off.released) return;
  late.meeting->outcome.join(hand_off.clock);
  if (observer_) [[unlikely]]
    late.meeting->contributors.emplace_back(hand_off.releaser, hand_off.epoch);
}

// A function acquires, then works, then releases: what it releases is the stream at its place
// and what it acquired.
bool Ordering::release_in_run(const HostHandOff& release) {
  const auto found = late_runs_.find(RankHandleKey{release.address_space, release.run});
  if (found == late_runs_.end()) return false;
  const LateRun& late = found->second;
  VectorClock released = late.at_place;
  released.join(late.meeting->outcome);
  return release_clock(released, late.stream, late.place, release);
}

bool Ordering::end_late_run(std::uint32_t address_space, std::uint64_t run) {
  const auto found = late_runs_.find(RankHandleKey{address_space, run});
  if (found == late_runs_.end()) return false;
  const std::shared_ptr<Meeting> meeting = std::move(found->second.meeting);
  StreamState* stream = stream_slot(found->second.stream);
  late_runs_.erase(found);
  settle_acquirers(*meeting);
  if (stream != nullptr && stream->late_run == meeting) stream->late_run.reset();
  return true;
}

std::vector<std::shared_ptr<Meeting>> Ordering::awaited_hand_offs(ActorId actor,
                                                                  Epoch epoch) const {
  std::vector<std::shared_ptr<Meeting>> awaited;
  const StreamState* stream = stream_of(actor);
  if (stream == nullptr) return awaited;
  // A stream's earlier late runs wait behind its latest one (begin_late_run).
  std::vector<const VectorClock*> clocks{&stream->clock};
  std::vector<const Meeting*> seen;
  while (!clocks.empty()) {
    const VectorClock* clock = clocks.back();
    clocks.pop_back();
    for (const auto& meeting : clock->pending()) {
      if (meeting->hand_off == 0 || meeting->complete ||
          std::find(seen.begin(), seen.end(), meeting.get()) != seen.end())
        continue;
      seen.push_back(meeting.get());
      clocks.push_back(&meeting->outcome);
      for (std::size_t i = 0; i < meeting->acquirers.size(); ++i)
        if (meeting->acquirers[i] == actor && meeting->acquired_at[i] < epoch) {
          awaited.push_back(meeting);
          break;
        }
    }
  }
  return awaited;
}

bool Ordering::release(ThreadState& thread, const HostHandOff& hand_off) {
  return release_by(thread, hand_off);
}

void Ordering::acquire(ThreadState& thread, const HostHandOff& hand_off) {
  acquire_by(thread, hand_off);
}

bool Ordering::release(StreamState& stream, const HostHandOff& hand_off) {
  return release_by(stream, hand_off);
}

void Ordering::acquire(StreamState& stream, const HostHandOff& hand_off) {
  acquire_by(stream, hand_off);
}

void Ordering::host_waits_for(ThreadState& thread, StreamState& stream) {
  settle_owned(stream.clock, stream.actor);
  thread.clock.join(stream.clock);
  ++thread.version;
  if (observer_) [[unlikely]]
    notify(JoinKind::HostSyncStream, stream.actor, stream.clock.get(stream.actor), false,
           thread.actor, stream.handle);
}

void Ordering::host_waits_for(ThreadState& thread, const EventState& event) {
  if (!event.recorded) return;
  thread.clock.join(event.snapshot);
  if (observer_) [[unlikely]]
    notify(JoinKind::HostSyncEvent, event.recorded_actor, event.recorded_epoch, true, thread.actor,
           event.handle);
  settle_owned(thread.clock, thread.actor);
  ++thread.version;
}

void Ordering::host_waits_for_device(ThreadState& thread, DeviceId device_id,
                                     DeviceStreams streams) {
  const DeviceId target = device_id == kCurrentDevice ? thread.device : device_id;
  for (StreamState* stream : device(thread.rank, target).streams) {
    if (streams == DeviceStreams::Blocking && stream->kind == StreamKind::NonBlocking) continue;
    settle_owned(stream->clock, stream->actor);
    thread.clock.join(stream->clock);
    if (observer_) [[unlikely]]
      notify(JoinKind::HostSyncDevice, stream->actor, stream->clock.get(stream->actor), false,
             thread.actor, static_cast<std::uint32_t>(target));
  }
  ++thread.version;
}

} // namespace streamrace